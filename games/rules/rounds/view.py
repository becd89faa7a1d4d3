"""What one seat sees of a Rounds match: its own hand, the trump cards and every trick so far.

Hidden: the other hand and the face-down stock (only their sizes are shown). Every trick is
played face up, so the cards each player has captured are public, for this stage and for
the finished stages of the current game; so are the trump cards of those stages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tricks import trick_view

if TYPE_CHECKING:  # the rules module imports this one
    from .rules import GameResult, RoundsState, StageResult


def rounds_view(state: RoundsState, seat: int, shared: bool = False) -> dict[str, Any]:
    return {
        "phase": state.phase.value,
        "game_number": state.game_number,
        "stage": state.stage,
        "hand": list(state.hands[seat]),
        "opponent_hand_size": len(state.hands[1 - seat]),
        "stock_size": len(state.stock),
        "trump_cards": list(state.trump_cards),
        "trump": state.trump,
        "leader": state.leader,
        "trick": trick_view(state.trick),
        "last_trick": trick_view(state.last_trick),
        "last_trick_winner": state.last_trick_winner,
        "tricks_played": state.tricks_played,
        "tricks_won": list(state.tricks_won),
        "captured": [list(state.captured[0]), list(state.captured[1])],
        "last_stages": [_stage_view(result) for result in state.stages_done],
        "history": list(state.deal_history(shared)),
        "last_game": _game_view(state.last_game),
    }


def _stage_view(result: StageResult) -> dict[str, Any]:
    return {
        "stage": result.stage,
        "dealer": result.dealer,
        "trump_cards": list(result.trump_cards),
        "tricks_won": list(result.tricks_won),
        "captured": [list(result.captured[0]), list(result.captured[1])],
        "points": list(result.points),
    }


def stage_part(result: StageResult) -> dict[str, Any]:
    """A finished stage as one of the match's score parts (``Rounds.score_parts``)."""
    return {
        "deal_number": result.deal_number,
        "game_number": result.game_number,
        "stage": result.stage,
        "dealer": result.dealer,
        "tricks_won": list(result.tricks_won),
        "points": list(result.points),
    }


def _game_view(result: GameResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "game_number": result.game_number,
        "stages": [_stage_view(stage) for stage in result.stages],
        "points": list(result.points),
    }
