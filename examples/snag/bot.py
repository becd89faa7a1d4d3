"""A starter bot for Snag: win tricks with high cards, take the highest card offered.

Run it locally against a built-in bot, with the server's protocol and limits:

    python manage.py play snag examples/snag/bot.py random

then upload it (docs/bot-author-guide.md). The observation's fields are in
docs/bot-protocol.md and the rules in docs/rules/snag.md. Log to stderr, never stdout.
"""

import json
import sys

RANKS = "23456789TJQKA"


def rank(card: str) -> int:
    """2 is 0, ace is 12: cards are two characters, rank then suit ("7H", "TS")."""
    return RANKS.index(card[0])


def choose(observation: dict, time_left: float) -> dict:
    """One of ``observation["legal_actions"]``: ``{"bar": card}``, ``{"play": card}`` or
    ``{"take": card}`` depending on ``observation["phase"]``."""
    legal = observation["legal_actions"]
    # Every Snag action names one card: prefer the highest (a bar card to lead, a card to
    # win the trick, the best card to take). A better bot counts suit lengths in "taken".
    return max(legal, key=lambda action: rank(next(iter(action.values()))))


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
