"""What one seat sees of a Snag match: its own hand, the bar, the tricks and the takes.

Hidden: the other hand and the 37 cards not dealt. Taken cards lie face down, but every
take happened in view of both players, so they are public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import own_copy

if TYPE_CHECKING:  # the rules module imports this one
    from .rules import SnagState


def snag_view(state: SnagState, seat: int, shared: bool = False) -> dict[str, Any]:
    return {
        "phase": state.phase.value,
        "hand": list(state.hands[seat]),
        "opponent_hand_size": len(state.hands[1 - seat]),
        "bar": list(state.bar),
        "leader": state.leader,
        "trick": _trick_view(state.trick, state.leader),
        "trick_winner": state.trick_winner,
        "untaken": list(state.pool),
        "taken": [list(state.taken[0]), list(state.taken[1])],
        "tricks_played": state.tricks_played,
        "history": list(state.deal_history(shared)),
        "last_deal": state.last_deal if shared else own_copy(state.last_deal),
    }


def _trick_view(trick: tuple[str, ...], leader: int) -> list[dict[str, Any]]:
    """The trick's cards with their seats: the leader, the follower, the leader."""
    seats = (leader, 1 - leader, leader)
    return [{"seat": seats[index], "card": card} for index, card in enumerate(trick)]
