"""Headless Chromium for the browser tests: Debian's package, driven by Playwright.

Playwright's own browser downloads are never used: Chromium is launched from
``CHROMIUM`` (``make test`` installs it with ``make browser-deps``), with the flags that
keep it off the network, which this machine does not have.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("BAIZE_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def chromium_path() -> str:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}: run make browser-deps (make test does)")
    return CHROMIUM


def screenshot(tab, name: str) -> Path:
    """Save the whole page at the tab's width and at a phone's width; the phone one's path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.set_viewport_size(DESKTOP)
    tab.screenshot(path=SCREENSHOTS / f"{name}-desktop.png", full_page=True)
    tab.set_viewport_size(PHONE)
    path = SCREENSHOTS / f"{name}-phone.png"
    tab.screenshot(path=path, full_page=True)
    tab.set_viewport_size(DESKTOP)
    return path


def contrast_failures(tab) -> list[str]:
    """Text below WCAG AA contrast against what is behind it (``contrast.js``)."""
    script = (Path(__file__).parent / "contrast.js").read_text().splitlines()
    return tab.evaluate("\n".join(line for line in script if not line.startswith("//")))


def overflows_sideways(tab) -> bool:
    """True if the page itself scrolls sideways (wide tables scroll inside their box)."""
    return tab.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")


def cut_at_the_right(tab) -> list[str]:
    """The tables (by id, else caption) wider than their box at the tab's width: they fit at
    desktop width, and scroll sideways inside their box only on a phone."""
    return tab.evaluate(
        """[...document.querySelectorAll('.scroll')]
        .filter(box => box.scrollWidth > box.clientWidth + 1)
        .map(box => { const t = box.querySelector('table');
                      return t ? (t.id || t.caption?.textContent || 'table') : 'box'; })"""
    )
