"""What one seat sees of a Jam match: its own hand, both discard piles and every trick so far.

Hidden: the opponent's hand (save the cards she drew back from her face-up discard pile)
and both face-down stocks, whose sizes only are shown. Tricks, discards and slam counters
happen in view of both players, so they are public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tricks import trick_view

if TYPE_CHECKING:  # the rules module imports this one
    from .rules import DealResult, JamState


def jam_view(state: JamState, seat: int, shared: bool = False) -> dict[str, Any]:
    opponent = 1 - seat
    return {
        "phase": state.phase.value,
        "rubber_number": state.rubber_number,
        "rubbers_won": list(state.rubbers_won),
        "hand": list(state.hands[seat]),
        "opponent_hand_size": len(state.hands[opponent]),
        "opponent_known_cards": list(state.revealed[opponent]),
        "stock_sizes": [len(state.stocks[0]), len(state.stocks[1])],
        "discard_piles": [list(state.discards[0]), list(state.discards[1])],
        "leader": state.leader,
        "trick": trick_view(state.trick),
        "last_trick": trick_view(state.last_trick),
        "last_trick_winner": state.last_trick_winner,
        "tricks_played": state.tricks_played,
        "tricks_won": list(state.tricks_won),
        "won": [list(state.won[0]), list(state.won[1])],
        "streaks": list(state.streaks),
        "baby_slams": list(state.baby_slams),
        "grand_slams": list(state.grand_slams),
        "draws_left": state.draws_left,
        "history": list(state.deal_history(shared)),
        "last_deal": _deal_view(state.last_deal),
    }


def _deal_view(result: DealResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "deal_number": result.deal_number,
        "rubber_number": result.rubber_number,
        "tricks_won": list(result.tricks_won),
        "slam_points": list(result.slam_points),
        "majority_points": list(result.majority_points),
        "scores": list(result.scores),
        "rubber_winner": result.rubber_winner,
    }
