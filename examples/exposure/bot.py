"""A starter bot for Exposure: expose nothing clever, then play high to lead and low to follow.

Run it locally against a built-in bot, with the server's protocol and limits:

    python manage.py play exposure examples/exposure/bot.py random

then upload it (docs/bot-author-guide.md). The observation's fields are in
docs/bot-protocol.md and the rules in docs/rules/exposure.md. Log to stderr, never stdout.
"""

import json
import sys

RANKS = "23456789TJQKA"


def rank(card: str) -> int:
    """2 is 0, ace is 12: cards are two characters, rank then suit ("7H", "TS")."""
    return RANKS.index(card[0])


def choose(observation: dict, time_left: float) -> dict:
    """One of ``observation["legal_actions"]``; the shapes depend on ``phase``."""
    legal = observation["legal_actions"]
    plays = [action for action in legal if "play" in action]
    if not plays:
        # Exposing, bidding a contract and the like: the first legal choice is a safe start.
        return legal[0]
    leading = not observation["trick"]
    pick = max if leading else min
    return pick(plays, key=lambda action: rank(action["play"]))


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            # Seat, options, limits and the place in the series arrive here; answer within
            # the start timeout. "series": true asks to play the next matches in this same
            # process: keep reading after "end" (the loop ends with the input).
            print(json.dumps({"type": "ready", "series": True}), flush=True)
        elif message["type"] == "decide":
            action = choose(message["observation"], message["time_left"])
            print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
