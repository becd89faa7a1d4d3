"""The chapters of a match for the replay viewer: where each deal and trick starts, the score.

A projection of the log's one fold (``games.replay.fold``: the recorded shuffle orders as
stacked decks, then the decisions in order). Everything it
returns is public while the match runs: step numbers, trick counts, match points, and the
points of each finished part of a game that scores by parts (``Game.score_parts``: Rounds'
stages), which count cards both seats saw taken.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from games.events import EventType
from games.replay import ReplayError, fold
from games.rules import Game, State

#: The shape of a ``Timeline``: a finished match's is kept (``web.views``) under a key that
#: names it, so a timeline kept before a change of shape is folded again.
TIMELINE_SHAPE = 2
#: What each game calls one deal in its rules pages.
DEAL_NOUN = {"spades": "Hand", "rounds": "Stage"}
#: Actions that put a card on the trick: a trick starts at the step that asks for one.
TRICK_ACTIONS = ("play", "bar")


@dataclass
class Chapter:
    step: int
    label: str


@dataclass
class Deal(Chapter):
    tricks: list[Chapter] = field(default_factory=list)
    #: The state's ``deal_number`` during this deal.
    number: int = 0


@dataclass
class ScorePart(Chapter):
    """A finished part of the match (``Game.score_parts``) at the step its deal starts."""

    #: The step after which its points are known: the decision that ended it.
    end: int = 0
    points: list[int] = field(default_factory=list)


@dataclass
class Timeline:
    steps: int = 0
    #: Match points after each step, ``scores[0]`` at the start.
    scores: list[list[int]] = field(default_factory=list)
    deals: list[Deal] = field(default_factory=list)
    #: What the game calls a part that scores on its own (``Game.score_part``), if any.
    score_part: str | None = None
    score_parts: list[ScorePart] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def match_timeline(records: list[tuple]) -> Timeline:
    """The chapters of a log of ``(seq, type, payload, hash)`` records, as far as its fold
    goes (``games.replay.fold``: a bad log stops it, and the viewer shows it up to there)."""
    timeline = Timeline()
    try:
        for folded in fold(records):
            if folded.kind in (EventType.MATCH_STARTED, EventType.DECISION):
                _mark(timeline, folded.game, folded.state, folded.step)
    except ReplayError:
        pass
    return timeline


def _mark(timeline: Timeline, game: Game, state: State, step: int) -> None:
    timeline.score_part = game.score_part
    timeline.steps = step
    timeline.scores.append(state.scores)
    _mark_chapters(timeline, game, state, step)
    _mark_score_parts(timeline, game, state, step)


def _mark_score_parts(timeline: Timeline, game: Game, state: State, step: int) -> None:
    """Add the parts that ended with the step just applied, each at its deal's chapter."""
    if game.score_part is None:
        return
    parts = game.score_parts(state)
    if len(parts) == len(timeline.score_parts):
        return
    deals = {deal.number: deal for deal in timeline.deals}
    for part in parts[len(timeline.score_parts) :]:
        deal = deals.get(part["deal_number"], Deal(0, f"{game.score_part} {part['deal_number']}"))
        timeline.score_parts.append(ScorePart(deal.step, deal.label, step, part["points"]))


def _mark_chapters(timeline: Timeline, game: Game, state: State, step: int) -> None:
    if state.to_play is None:
        return
    view = game.observation(state, 0)
    if not timeline.deals or timeline.deals[-1].label != _deal_label(game, state, view):
        timeline.deals.append(Deal(step, _deal_label(game, state, view), number=state.deal_number))
    deal = timeline.deals[-1]
    starts_trick = not view.get("trick") and any(
        key in action for action in state.legal_actions() for key in TRICK_ACTIONS
    )
    if starts_trick and len(deal.tricks) == view.get("tricks_played", 0):
        deal.tricks.append(Chapter(step, f"Trick {len(deal.tricks) + 1}"))


def _deal_label(game: Game, state: State, view: dict[str, Any]) -> str:
    if "stage" in view and "game_number" in view:
        return f"Game {view['game_number']}, stage {view['stage']}"
    return f"{DEAL_NOUN.get(game.id, 'Deal')} {state.deal_number}"
