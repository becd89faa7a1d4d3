"""Starter bot for the `python` runtime: a uniformly random legal action, in every game.

Upload this file alone (runtime `python`). The server runs it as `python3 -I -S -B bot.py`
from its folder: Python 3.11, the standard library only. Put your logic in `choose`.
"""

import json
import random
import sys

#: The generator is seeded again at each `start` from this and the match's place in its
#: series, so a match plays the same way whichever process plays it.
SEED = 12345


def choose(observation, time_left, rng):
    """One of `observation["legal_actions"]`, returned exactly as listed. `time_left` is the
    seconds this reply may take (the decision limit plus what is left of the time bank)."""
    return rng.choice(observation["legal_actions"])


def send(message):
    # stdout is the protocol channel: one line per message, flushed at once (a pipe is
    # buffered, and a reply still in the buffer has not been sent).
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def log(text):
    # stderr is for your logs, kept for you alone. Flush it too: PyPy buffers it, and what is
    # still in a buffer when the match ends and the bot is killed is lost.
    print(text, file=sys.stderr, flush=True)


def main():
    rng = random.Random(SEED)
    for line in sys.stdin:  # the end of input ends the series: the loop, and the bot, end
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            rng.seed(SEED + message.get("series", {}).get("match", 1))
            log(f"start: {message['game']} seat {message['seat']}")
            # "series": true: keep this process for the series' next matches.
            send({"type": "ready", "series": True})
        elif kind == "decide":
            action = choose(message["observation"], message["time_left"], rng)
            send({"action": action})
        elif kind == "end":
            # No answer; the next line is the next match's start, or the input ends.
            log(f"end: winner {message['winner']}, scores {message['scores']}")


if __name__ == "__main__":
    main()
