// Replay viewer: draws a match step by step from the public replay API.
//   GET state/?view=V&step=N  -> scores, the public view, and the hands view V shows
//   GET events/        -> the event log, for the list of moves
// The chapters (where each deal and trick starts) come with the page.
(function () {
  "use strict";

  var root = document.getElementById("replay");
  if (!root) return;
  var info = JSON.parse(document.getElementById("replay-match").textContent);
  var timeline = JSON.parse(document.getElementById("replay-timeline").textContent);
  var table = document.getElementById("table");
  var statusLine = document.getElementById("replay-status");
  var slider = document.getElementById("step-slider");
  var jump = document.getElementById("jump");
  var speed = document.getElementById("speed");
  var playButton = document.getElementById("play-button");
  var log = document.getElementById("move-log");
  var chart = document.getElementById("score-chart");
  var cursor = document.getElementById("score-chart-cursor");

  var steps = timeline.steps;
  var step = 0;
  var shown = null;
  var states = new Map();
  var decisions = [];
  var eventsSeen = 0;
  var request = 0;
  var timer = null;

  // Cards ------------------------------------------------------------------------------

  var SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
  var RANK_TEXT = { T: "10" };
  var RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardName(card) {
    return (RANK_NAMES[card[0]] || card[0]) + " of " + SUITS[card[1]][1];
  }

  function cardText(card) {
    return (RANK_TEXT[card[0]] || card[0]) + SUITS[card[1]][0];
  }

  function cardEl(card, options) {
    options = options || {};
    var red = card[1] === "H" || card[1] === "D";
    var node = el("span", "card" + (red ? " red" : "") + (options.small ? " small" : ""));
    node.dataset.card = card;
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", cardName(card) + (options.who ? ", " + options.who : ""));
    node.appendChild(el("span", "rank", RANK_TEXT[card[0]] || card[0])).setAttribute("aria-hidden", "true");
    node.appendChild(el("span", "suit", SUITS[card[1]][0])).setAttribute("aria-hidden", "true");
    if (options.won) node.classList.add("won");
    if (!options.who) return node;
    var played = el("span", "trick-card");
    played.appendChild(node);
    played.appendChild(el("span", "who", options.who)).setAttribute("aria-hidden", "true");
    return played;
  }

  function backs(count, small) {
    var row = el("div", "cards");
    for (var i = 0; i < count; i++) {
      var back = el("span", "card back" + (small ? " small" : ""));
      back.setAttribute("aria-hidden", "true");
      row.appendChild(back);
    }
    row.setAttribute("role", "img");
    row.setAttribute("aria-label", count + " face-down card" + (count === 1 ? "" : "s"));
    return row;
  }

  function cards(list, options) {
    var row = el("div", "cards");
    (list || []).forEach(function (card) { row.appendChild(cardEl(card, options)); });
    if (!list || !list.length) row.appendChild(el("span", "note", "none"));
    return row;
  }

  function zone(name, title, content, note) {
    var box = el("div", "zone");
    box.dataset.zone = name;
    box.appendChild(el("h3", "", title));
    if (content) box.appendChild(content);
    if (note) box.appendChild(el("p", "note", note));
    return box;
  }

  function trickCards(entries, winner) {
    var row = el("div", "cards");
    entries.forEach(function (entry) {
      row.appendChild(cardEl(entry.card, { who: info.players[entry.seat], won: winner === entry.seat }));
    });
    if (!entries.length) row.appendChild(el("span", "note", "no card yet"));
    return row;
  }

  // The table of each game ------------------------------------------------------------

  function trickZone(view) {
    if (view.trick && view.trick.length) return zone("trick", "Trick", trickCards(view.trick));
    var last = lastTrick(view);
    if (last) {
      var note = info.players[last.winner] + " won it";
      return zone("trick", "Last trick", trickCards(last.entries, last.winner), note);
    }
    return zone("trick", "Trick", trickCards([]));
  }

  function lastTrick(view) {
    if (view.last_trick && view.last_trick.length) {
      return { entries: view.last_trick, winner: view.last_trick_winner };
    }
    if (view.tricks && view.tricks.length && view.tricks[0].cards) {
      var last = view.tricks[view.tricks.length - 1];
      var other = 1 - last.leader;
      return {
        entries: [{ seat: last.leader, card: last.cards[0] }, { seat: other, card: last.cards[1] }],
        winner: last.winner,
      };
    }
    return null;
  }

  function suitName(suit) {
    return suit ? SUITS[suit][0] + " " + SUITS[suit][1] : "none";
  }

  var GAMES = {
    snag: {
      centre: function (view) {
        var parts = [zone("bar", "Bar", cards(view.bar)), zone("trick", "Trick", trickCards(view.trick || [], view.trick_winner))];
        if (view.untaken && view.untaken.length) parts.push(zone("untaken", "To take", cards(view.untaken)));
        return parts;
      },
      seat: function (view, seat) {
        return [zone("taken-" + seat, "Taken", cards((view.taken || [[], []])[seat], { small: true }))];
      },
    },
    exposure: {
      centre: function (view) {
        var contract = view.contract || {};
        var note = "Trump " + suitName(contract.trump) + " · high rank " + contract.high_rank + " · contract " + contract.contract_tricks + " tricks";
        return [zone("contract", "Contract", cards(contract.cards), note), trickZone(view)];
      },
      seat: function (view, seat) {
        var won = (view.tricks_won || [0, 0])[seat];
        var bonus = (view.exposure_points || [0, 0])[seat];
        var note = "Tricks won " + won + " · exposure points " + bonus;
        return [zone("exposed-" + seat, "Exposed", cards((view.exposed || [[], []])[seat], { small: true }), note)];
      },
    },
    spades: {
      centre: function (view) {
        // Each seat's panel has its "Hand": the centre's note is headed by what it is about.
        if (view.phase === "draw") return [trickZone(view), zone("info", "Selection", null, view.draws_left + " draws left")];
        var note = view.spades_broken ? "broken: they may be led" : "not broken yet";
        return [trickZone(view), zone("info", "Spades", null, note)];
      },
      seat: function (view, seat) {
        var bid = (view.bids || [null, null])[seat];
        var note = "Bid " + (bid === null || bid === undefined ? "–" : bid) + " · tricks won " + (view.tricks_won || [0, 0])[seat];
        return [zone("bid-" + seat, "Bid and tricks", null, note)];
      },
    },
    rounds: {
      centre: function (view) {
        var note = "Trump " + suitName(view.trump) + " · stock " + view.stock_size + " cards";
        return [zone("trumps", "Trump cards", cards(view.trump_cards), note), trickZone(view)];
      },
      seat: function (view, seat) {
        return [zone("captured-" + seat, "Captured this stage", cards((view.captured || [[], []])[seat], { small: true }))];
      },
    },
    jam: {
      centre: function (view) {
        var rubbers = view.rubbers_won || [0, 0];
        var note = "Rubber " + view.rubber_number + " · rubbers won " + rubbers[0] + "–" + rubbers[1];
        return [trickZone(view), zone("info", "Deal", null, note)];
      },
      seat: function (view, seat) {
        var pile = (view.discard_piles || [[], []])[seat];
        var stock = (view.stock_sizes || [0, 0])[seat];
        var won = (view.tricks_won || [0, 0])[seat];
        var grand = (view.grand_slams || [false, false])[seat];
        var slams = "baby slams " + (view.baby_slams || [0, 0])[seat] + " · grand slam " + (grand ? "yes" : "no");
        return [
          zone("discards-" + seat, "Discard pile", cards(pile, { small: true })),
          zone("stock-" + seat, "Stock", backs(Math.min(stock, 3), true), stock + " cards · tricks won " + won + " · " + slams),
        ];
      },
    },
  };

  // Drawing one step ------------------------------------------------------------------

  function seatPanel(body, seat, game) {
    var view = body.public;
    var panel = el("section", "seat" + (body.to_play === seat ? " to-play" : ""));
    panel.dataset.seat = seat;
    panel.setAttribute("aria-label", "Seat " + seat + ": " + info.players[seat]);
    var head = el("div", "seat-head");
    head.appendChild(el("span", "name", info.players[seat]));
    head.appendChild(el("span", "muted-light", "seat " + seat + (body.to_play === seat ? " · to play" : "")));
    var score = el("span", "score", String(body.scores[seat]));
    score.dataset.score = seat;
    score.setAttribute("aria-label", "score " + body.scores[seat]);
    head.appendChild(score);
    panel.appendChild(head);
    var zones = el("div", "zones");
    var seen = body.observations && body.observations[String(seat)];
    var hand = seen
      ? zone("hand-" + seat, "Hand", cards(seen.hand))
      : zone("hand-" + seat, "Hand", backs(view.hand_sizes[seat]), "hidden in this view");
    zones.appendChild(hand);
    game.seat(view, seat).forEach(function (part) { zones.appendChild(part); });
    panel.appendChild(zones);
    return panel;
  }

  function draw(body) {
    var game = GAMES[info.game];
    table.replaceChildren();
    table.appendChild(seatPanel(body, 1, game));
    var centre = el("section", "centre");
    centre.setAttribute("aria-label", "Table");
    game.centre(body.public).forEach(function (part) { centre.appendChild(part); });
    table.appendChild(centre);
    table.appendChild(seatPanel(body, 0, game));
    table.dataset.step = body.step;
    shown = body;
    describe(body);
  }

  function chapter(at) {
    var deal = null, trick = null;
    timeline.deals.forEach(function (d) { if (d.step <= at) deal = d; });
    if (deal) deal.tricks.forEach(function (t) { if (t.step <= at) trick = t; });
    return [deal, trick];
  }

  function actionText(action) {
    if (action === null) return "made a move still face down";
    if ("play" in action) return "played " + cardText(action.play);
    if ("bar" in action) return "led " + cardText(action.bar) + " from the bar";
    if ("take" in action) return "took " + cardText(action.take);
    if ("expose" in action) return action.expose.length ? "exposed " + action.expose.map(cardText).join(" ") : "exposed nothing more";
    if ("bid" in action) return "bid " + action.bid;
    if ("keep" in action) return action.keep ? "kept the card drawn" : "let the card drawn go";
    if ("draw" in action) return "drew from " + (action.draw === "stock" ? "the stock" : "the discard pile");
    if ("discard" in action) return "discarded " + cardText(action.discard);
    return JSON.stringify(action);
  }

  function describe(body) {
    var where = chapter(body.step);
    var parts = ["Step " + body.step + " of " + steps];
    if (where[0]) parts.push(where[0].label + (where[1] ? ", " + where[1].label.toLowerCase() : ""));
    if (body.last_decision) parts.push(info.players[body.last_decision.seat] + " " + actionText(body.last_decision.action));
    if (body.winner !== null && body.winner !== undefined) parts.push(info.players[body.winner] + " wins " + body.scores[0] + "–" + body.scores[1]);
    else if (body.to_play !== null && body.to_play !== undefined) parts.push(info.players[body.to_play] + " to play");
    statusLine.textContent = parts.join(" · ");
  }

  // Moving through the match ----------------------------------------------------------

  function fetchState(at) {
    if (states.has(at)) return states.get(at);
    var promise = fetch(root.dataset.stateUrl + "?view=" + info.view + "&step=" + at, { headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error("state " + at + ": HTTP " + response.status);
        return response.json();
      });
    promise.catch(function () { states.delete(at); });
    states.set(at, promise);
    return promise;
  }

  function go(at) {
    at = Math.max(0, Math.min(steps, at));
    step = at;
    slider.value = String(at);
    slider.setAttribute("aria-valuetext", "step " + at + " of " + steps);
    moveCursor(at);
    markLog(at);
    markChapter(at);
    markParts(at);
    if (window.history.replaceState) window.history.replaceState(null, "", "#step=" + at);
    var mine = ++request;
    fetchState(at).then(function (body) {
      if (mine === request) draw(body);
      if (at < steps) fetchState(at + 1);
    }).catch(function (error) { statusLine.textContent = "Could not load step " + at + ": " + error.message; });
  }

  // The points of each finished part (a Rounds stage): the row being played is marked, and
  // the rows whose part ends after this step are greyed.
  var parts = document.getElementById("score-parts");

  function markParts(at) {
    if (!parts) return;
    parts.querySelectorAll("tbody tr").forEach(function (row) {
      var playing = Number(row.dataset.step) <= at && at < Number(row.dataset.end);
      if (playing) row.setAttribute("aria-current", "step");
      else row.removeAttribute("aria-current");
      row.classList.toggle("ahead", Number(row.dataset.end) > at);
    });
  }

  if (parts) {
    parts.addEventListener("click", function (event) {
      var link = event.target.closest("a");
      if (!link) return;
      event.preventDefault();
      pause();
      go(Number(link.closest("tr").dataset.step));
    });
  }

  function markChapter(at) {
    var options = jump.options, chosen = 0;
    for (var i = 0; i < options.length; i++) if (Number(options[i].value) <= at) chosen = i;
    jump.selectedIndex = chosen;
  }

  function trickStarts() {
    var list = [];
    timeline.deals.forEach(function (deal) { deal.tricks.forEach(function (t) { list.push(t.step); }); });
    return list;
  }

  function dealStarts() {
    return timeline.deals.map(function (deal) { return deal.step; });
  }

  function nextOf(list) {
    for (var i = 0; i < list.length; i++) if (list[i] > step) return list[i];
    return steps;
  }

  function previousOf(list) {
    for (var i = list.length - 1; i >= 0; i--) if (list[i] < step) return list[i];
    return 0;
  }

  function play() {
    if (timer) return pause();
    if (step >= steps) go(0);
    playButton.setAttribute("aria-pressed", "true");
    playButton.textContent = "⏸ Pause";
    playButton.setAttribute("aria-label", "Pause");
    tick();
  }

  function tick() {
    timer = window.setTimeout(function () {
      if (step >= steps) return pause();
      go(step + 1);
      tick();
    }, Number(speed.value));
  }

  function pause() {
    window.clearTimeout(timer);
    timer = null;
    playButton.setAttribute("aria-pressed", "false");
    playButton.textContent = "▶ Play";
    playButton.setAttribute("aria-label", "Play");
  }

  var ACTIONS = {
    first: function () { go(0); },
    last: function () { go(steps); },
    back: function () { go(step - 1); },
    forward: function () { go(step + 1); },
    "previous-trick": function () { go(previousOf(trickStarts())); },
    "next-trick": function () { go(nextOf(trickStarts())); },
    "previous-deal": function () { go(previousOf(dealStarts())); },
    "next-deal": function () { go(nextOf(dealStarts())); },
    play: play,
  };

  var KEYS = {
    ArrowRight: "forward", ArrowLeft: "back", Home: "first", End: "last",
    PageDown: "next-trick", PageUp: "previous-trick", " ": "play",
  };

  root.addEventListener("click", function (event) {
    var button = event.target.closest("[data-action]");
    if (button) {
      if (button.dataset.action !== "play") pause();
      ACTIONS[button.dataset.action]();
    }
    var move = event.target.closest("[data-step]");
    if (move && log.contains(move)) { pause(); go(Number(move.dataset.step)); }
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var tag = target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === " " && tag === "BUTTON") return;
    var name = KEYS[event.key];
    if (event.shiftKey && event.key === "PageDown") name = "next-deal";
    if (event.shiftKey && event.key === "PageUp") name = "previous-deal";
    if (!name) return;
    event.preventDefault();
    if (name !== "play") pause();
    ACTIONS[name]();
  });

  slider.addEventListener("input", function () { pause(); go(Number(slider.value)); });
  jump.addEventListener("change", function () { pause(); go(Number(jump.value)); });

  // Score chart and the list of moves -------------------------------------------------

  function moveCursor(at) {
    if (!cursor) return;
    var left = Number(chart.dataset.left), right = Number(chart.dataset.right);
    var xMax = Number(chart.dataset.xMax) || 1;
    var x = left + (right - left) * Math.min(at, xMax) / xMax;
    cursor.setAttribute("x1", x.toFixed(1));
    cursor.setAttribute("x2", x.toFixed(1));
  }

  function markLog(at) {
    var current = log.querySelector("[aria-current]");
    if (current) current.removeAttribute("aria-current");
    var item = log.children[at - 1];
    if (!item) return;
    item.setAttribute("aria-current", "step");
    var top = item.offsetTop - log.offsetTop;
    if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - item.offsetHeight) {
      log.scrollTop = top - log.clientHeight / 2;
    }
  }

  function addEvents(events) {
    events.forEach(function (event) {
      eventsSeen += 1;
      if (event.type === "decision") {
        decisions.push(event.payload);
        var item = el("li");
        var button = el("button", "", info.players[event.payload.seat] + " " + actionText(event.payload.action));
        button.type = "button";
        button.dataset.step = decisions.length;
        item.appendChild(button);
        log.appendChild(item);
      } else if (event.type === "forfeit") {
        var forfeit = el("li", "loss", info.players[event.payload.seat] + " forfeits: " + event.payload.reason);
        log.appendChild(forfeit);
      } else if (event.type === "match_finished") {
        finished = true;
      }
    });
  }

  var finished = info.status === "finished";

  function loadEvents() {
    var url = root.dataset.eventsUrl + "?view=" + info.view + "&limit=1000&offset=" + eventsSeen;
    return fetch(url, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (page) {
        addEvents(page.results);
        if (page.next) return loadEvents();
      });
  }

  // A running match: follow new moves as they are logged; reload once it ends, for the hands.

  function follow() {
    window.setTimeout(function () {
      var atEnd = step >= steps;
      loadEvents().then(function () {
        if (finished) {
          window.location.reload();
          return;
        }
        if (decisions.length > steps) {
          steps = decisions.length;
          slider.max = String(steps);
          if (atEnd) go(steps);
        }
      }).catch(function () {}).then(function () { if (!finished) follow(); });
    }, 2000);
  }

  function startingStep() {
    var match = /step=(\d+)/.exec(window.location.hash);
    if (match) return Number(match[1]);
    return info.status === "running" ? steps : 0;
  }

  // A match not started yet has no position at all: wait for its first events.
  function waitForStart() {
    statusLine.textContent = "This match has not started yet; it will show here as it is played.";
    window.setTimeout(function () {
      loadEvents().then(function () {
        if (eventsSeen) window.location.reload();
        else waitForStart();
      }).catch(waitForStart);
    }, 3000);
  }

  if (info.status === "pending") {
    waitForStart();
    return;
  }
  loadEvents().then(function () {
    markLog(step);
    // A page drawn as running whose log has already ended is a moment behind the match's
    // status: following it would reload the page again and again until the status caught up.
    if (info.status === "running" && !finished) follow();
  });
  go(startingStep());
})();
