// Live tournament page: poll the changing part, replace it only when the server says it changed.
(function () {
  "use strict";
  var region = document.getElementById("live");
  if (!region) return;
  var url = region.dataset.liveUrl;
  var every = Number(region.dataset.pollMs || 2000);
  var etag = null;
  var settled = ["finished", "cancelled"];

  function status() {
    var section = region.querySelector("[data-tournament-status]");
    return section ? section.dataset.tournamentStatus : region.dataset.status;
  }

  function poll() {
    if (document.hidden) return schedule();
    var headers = etag ? { "If-None-Match": etag } : {};
    fetch(url, { headers: headers, cache: "no-store" })
      .then(function (response) {
        if (response.status === 200) {
          etag = response.headers.get("ETag");
          return response.text().then(function (html) {
            region.innerHTML = html;
            announce();
            region.dispatchEvent(new CustomEvent("baize:updated"));
          });
        }
      })
      .catch(function () { /* the next poll tries again */ })
      .then(schedule);
  }

  // The region is replaced whole; a short summary goes to a live region that stays put.
  function announce() {
    var announcer = document.getElementById("live-announcer");
    var progress = document.getElementById("match-progress");
    if (announcer && progress) announcer.textContent = "Standings updated: " + progress.textContent;
  }

  function schedule() {
    if (settled.indexOf(status()) === -1) window.setTimeout(poll, every);
  }

  schedule();
})();
