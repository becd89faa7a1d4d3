// WCAG contrast of each text element against the first opaque background behind it:
// the elements below 4.5:1 (3:1 for large text), for the browser tests.
() => {
  function rgb(text) { const m = text.match(/[\d.]+/g); return m ? m.map(Number) : null; }
  function lum([r, g, b]) {
    const c = [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  function background(node) {
    for (; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.backgroundImage !== "none" && !node.classList.contains("card")) return null;
      const c = rgb(style.backgroundColor);
      if (c && (c.length < 4 || c[3] === 1)) return c;
    }
    return [255, 255, 255];
  }
  const failures = [];
  for (const node of document.querySelectorAll("body *")) {
    const own = [...node.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !node.getClientRects().length) continue;
    const style = getComputedStyle(node);
    if (style.visibility === "hidden" || node.closest(".visually-hidden, .skip, svg")) continue;
    const back = background(node);
    if (!back) continue;
    const [a, b] = [lum(rgb(style.color)), lum(back)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) failures.push(`${node.tagName}.${node.className}: ${ratio.toFixed(2)} "${node.textContent.trim().slice(0, 30)}"`);
  }
  return failures;
}
