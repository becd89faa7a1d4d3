"""What one seat sees of a Two-handed Spades match.

Hidden: the other hand, and in a selection deal every card the other seat looked at (the
card she kept, the card she discarded after looking at it), plus the cards discarded unseen
and, in an automatic deal, the 26 cards not dealt. Public: every draw decision (keep or not),
the bids, every card played, tricks won. A seat sees her own draws in full.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import own_copy

if TYPE_CHECKING:  # the rules module imports this one
    from .rules import SpadesState

#: History keys that name cards only the drawing seat has seen.
PRIVATE_KEYS = ("received", "discarded")


def spades_view(state: SpadesState, seat: int, shared: bool = False) -> dict[str, Any]:
    return {
        "phase": state.phase.value,
        "hand": list(state.hands[seat]),
        "opponent_hand_size": len(state.hands[1 - seat]),
        "starting_bidder": state.starting_bidder,
        "draw_card": state.draw_card if state.to_play == seat else None,
        "draws_left": (52 - state.draw_position) // 2 if state.phase.value == "draw" else 0,
        "seen_discards": list(state.seen_discards[seat]),
        "bids": list(state.bids),
        "leader": state.leader,
        "trick": [] if state.led is None else [{"seat": state.leader, "card": state.led}],
        "tricks": [
            {"leader": leader, "cards": [led, second], "winner": winner}
            for leader, led, second, winner in state.tricks
        ],
        "tricks_won": list(state.tricks_won),
        "tricks_played": len(state.tricks),
        "spades_broken": state.spades_broken,
        "history": [_seen_by(entry, seat) for entry in state.deal_history(shared)],
        "last_deal": state.last_deal if shared else own_copy(state.last_deal),
    }


def _seen_by(entry: dict[str, Any], seat: int) -> dict[str, Any]:
    if entry["seat"] == seat:
        return entry
    return {key: value for key, value in entry.items() if key not in PRIVATE_KEYS}
