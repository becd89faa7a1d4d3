"""What one seat sees of an Exposure match.

Hidden: the other seat's unexposed cards and the three cards discarded unseen each deal.
Public: the contract cards, every exposed card and claimed group, every card played, tricks
won. The history of the deal is entirely public (claims and plays happen face up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import own_copy
from .ranking import rank_order

if TYPE_CHECKING:  # the rules module imports this one
    from .rules import ExposureState


def exposure_view(state: ExposureState, seat: int, shared: bool = False) -> dict[str, Any]:
    high_rank = state.high_rank
    return {
        "phase": state.phase.value,
        "hand": list(state.hands[seat]),
        "exposed": [list(state.exposed[0]), list(state.exposed[1])],
        "opponent_hand_size": len(state.hands[1 - seat]),
        "contract": {
            "cards": list(state.contract),
            "trump": state.trump,
            "high_rank": high_rank,
            "contract_tricks": state.contract_tricks,
            # Lowest first; public knowledge derived from the contract, given so bots need no copy.
            "rank_order_led": list(rank_order(high_rank, led=True)),
            "rank_order_second": list(rank_order(high_rank, led=False)),
        },
        "groups": [[list(group) for group in state.groups[s]] for s in (0, 1)],
        "exposure_points": list(state.bonus_points),
        "leader": state.leader,
        "trick": [] if state.led is None else [{"seat": state.leader, "card": state.led}],
        "tricks": [
            {"leader": leader, "cards": [led, second], "winner": winner}
            for leader, led, second, winner in state.tricks
        ],
        "tricks_won": list(state.tricks_won),
        "tricks_played": len(state.tricks),
        "history": list(state.deal_history(shared)),
        "last_deal": state.last_deal if shared else own_copy(state.last_deal),
    }
