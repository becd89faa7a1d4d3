// Starter bot for the `javascript` runtime: a uniformly random legal action, in every game.
//
// Run on the server as `node bot.js` (Node.js 20, its built-in modules only: no npm
// packages). Put your logic in choose.
//
// stdout is the protocol channel: one line per message. Log to stderr (console.error).
"use strict";

const readline = require("node:readline");

// The generator is seeded again at each start from this and the match's place in its series,
// so a match plays the same way whichever process plays it.
const SEED = 12345;

// mulberry32: a small seeded generator (Math.random cannot be seeded). Numbers in [0, 1).
function generator(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One of observation.legal_actions, returned exactly as listed. timeLeft is the seconds this
// reply may take (the decision limit plus what is left of the time bank).
function choose(observation, timeLeft, random) {
  const legal = observation.legal_actions;
  return legal[Math.floor(random() * legal.length)];
}

// Writing to a pipe is synchronous in Node on Linux: the line is sent when write returns.
// Never use console.log for anything but protocol lines.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let random = generator(SEED);
// The end of input closes the reader; with nothing left to do, Node exits.
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  if (message.type === "start") {
    random = generator(SEED + ((message.series && message.series.match) || 1));
    console.error(`start: ${message.game} seat ${message.seat}`);
    // "series": true: keep this process for the series' next matches.
    send({ type: "ready", series: true });
  } else if (message.type === "decide") {
    send({ action: choose(message.observation, message.time_left, random) });
  } else if (message.type === "end") {
    // No answer; the next line is the next match's start, or the input ends.
    console.error(`end: winner ${message.winner}, scores ${JSON.stringify(message.scores)}`);
  }
});
