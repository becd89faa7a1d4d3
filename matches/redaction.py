"""What one viewer may see of one match log: the rule, as pure functions (no Django).

A deal is *in play* while any match dealt from the same seed is unfinished: the two
matches of a duplicate set are dealt the same cards, and a failed match shares its seed
with its replacement. While it is, a viewer sees a log through a ``Lens``:

- the seed, the stacked decks, the built-in bots' seeds and every shuffle order are
  withheld;
- a decision is shown only if every card it names is face up for the viewer once it is
  made (a spectator: what both seats see alike; a seat: what that seat's bot was sent);
  a forfeit's detail likewise (an illegal action's detail lists the hand it was made from);
- a match that is over while its deal is still in play elsewhere shows no moves at all,
  only its result: its played cards are the hands of the match still being played.

An event shown with part of it withheld carries ``"redacted"`` saying what, and no hash
where the hash could be searched for what was withheld (a card among 52, a small seed).
Once no match of the deal is in play, every event is shown as stored, except the one
private text older logs hold: before forfeits kept stderr out of the log, a crash or
timeout's detail ended with the bot's stderr, which only the seat's owner and staff see.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from games.events import EventType
from games.replay import (
    Folded,
    Position,
    ReplayError,
    chain_failures,
    decision_positions,
    fold,
)
from games.rules import Game, State
from games.rules.cards import is_card

#: How a forfeit's detail introduced the bot's stderr before stderr left the log.
LEGACY_STDERR_MARK = "; its stderr ends with:\n"
LEGACY_STDERR_NOTE = "; [the rest was the bot's stderr, shown only to its owner and staff]"
_CARD_TOKEN = re.compile(r"\b[2-9TJQKA][SHDC]\b")


@dataclass(frozen=True, slots=True)
class Lens:
    """How one viewer sees one match's log."""

    #: None: a spectator; 0 or 1: the bot in that seat (its owner, or staff asking for it).
    seat: int | None = None
    #: The match's deal is in play: the seed, shuffles and face-down cards are withheld.
    deal_in_play: bool = False
    #: The match is over but its deal is in play elsewhere: its moves are withheld too.
    moves_withheld: bool = False
    #: Seats whose private text (stderr in older logs) the viewer may read.
    private_seats: frozenset[int] = frozenset()

    @property
    def sees_everything(self) -> bool:
        return not self.deal_in_play and self.private_seats == {0, 1}


def visible_events(records: Sequence[Sequence[Any]], lens: Lens) -> list[dict[str, Any]]:
    """Each event of ``records`` (``seq, type, payload, hash``) as ``lens`` shows it."""
    return list(iter_visible_events(records, lens))


def iter_visible_events(records: Sequence[Sequence[Any]], lens: Lens) -> Iterator[dict[str, Any]]:
    """``visible_events``, one at a time: a caller that needs the start of a log only
    folds that far."""
    if not lens.deal_in_play:
        return (_open_event(record, lens) for record in records)
    return _sealed_events(records, lens)


def _open_event(record: Sequence[Any], lens: Lens) -> dict[str, Any]:
    seq, kind, payload, hash = record[:4]
    event = {"seq": seq, "type": kind, "payload": payload, "hash": hash}
    if kind == EventType.FORFEIT and payload.get("seat") not in lens.private_seats:
        detail = payload.get("detail") or ""
        if LEGACY_STDERR_MARK in detail:
            public = detail.split(LEGACY_STDERR_MARK, 1)[0] + LEGACY_STDERR_NOTE
            event["payload"] = {**payload, "detail": public}
            event["redacted"] = "the bot's stderr"
    return event


def _sealed_events(records: Sequence[Sequence[Any]], lens: Lens) -> Iterator[dict[str, Any]]:
    faces = _FaceUp(records, lens.seat)
    for record in records:
        seq, kind, payload, hash = record[:4]
        if kind == EventType.MATCH_STARTED:
            yield _withheld(seq, kind, started_payload_sealed(payload), "the seed")
        elif kind == EventType.SHUFFLE:
            yield _withheld(seq, kind, {"k": payload.get("k"), "order": None}, "the card order")
        elif kind == EventType.DECISION:
            yield _sealed_decision(record, lens, faces.after(seq))
        elif kind == EventType.FORFEIT:
            yield _sealed_forfeit(record, lens, faces.after(seq))
        else:
            yield {"seq": seq, "type": kind, "payload": payload, "hash": hash}


def started_payload_sealed(payload: dict[str, Any]) -> dict[str, Any]:
    """A ``match_started`` payload without what fixes the deal: the seed and stacked decks,
    and the built-in bots' seeds (derived from the match's seed: a small seed could be
    searched for through them)."""
    options = {key: value for key, value in payload.get("options", {}).items() if key != "decks"}
    players = payload.get("players", [])
    if isinstance(players, list):
        players = [_player_sealed(player) for player in players]
    return {**payload, "seed": None, "options": options, "players": players}


def _player_sealed(player: Any) -> Any:
    if isinstance(player, dict) and "bot_seed" in player:
        return {**player, "bot_seed": None}
    return player


def _sealed_decision(record: Sequence[Any], lens: Lens, face_up: set[str]) -> dict[str, Any]:
    seq, kind, payload, hash = record[:4]
    if lens.moves_withheld:
        return _withheld(seq, kind, {"seat": payload.get("seat"), "action": None}, "the move")
    if payload.get("seat") == lens.seat or cards_in(payload.get("action")) <= face_up:
        return {"seq": seq, "type": kind, "payload": payload, "hash": hash}
    return _withheld(seq, kind, {**payload, "action": None}, "a face-down card")


def _sealed_forfeit(record: Sequence[Any], lens: Lens, face_up: set[str]) -> dict[str, Any]:
    event = _open_event(record, lens)
    detail = event["payload"].get("detail") or ""
    named = set(_CARD_TOKEN.findall(detail))
    if lens.moves_withheld or not named <= face_up:
        payload = {**event["payload"], "detail": None}
        return _withheld(event["seq"], event["type"], payload, "cards still face down")
    return event


def _withheld(seq: int, kind: str, payload: Any, what: str) -> dict[str, Any]:
    return {"seq": seq, "type": kind, "payload": payload, "hash": None, "redacted": what}


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value (its strings, not its keys).

    A loop rather than a recursion building a set at every level: a running match's seat
    view reads every position's view, history included, so this ran millions of times.
    """
    found: set[str] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if is_card(item):
                found.add(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return found


def seat_view(game: Game, state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` observes at ``state``; for a spectator (None), the public view."""
    if seat is not None:
        return game.observation(state, seat)
    observations = [game.observation(state, each) for each in (0, 1)]
    return Position(0, state, observations).public


def face_up_cards(view: dict[str, Any], *, with_summaries: bool) -> set[str]:
    """The cards a view shows; summaries of finished deals (``last_*``) only if asked."""
    return cards_in(
        {key: value for key, value in view.items() if with_summaries or not key.startswith("last_")}
    )


class _FaceUp:
    """The cards a viewer has seen face up in the current deal, record by record of the
    log's fold (``games.replay.fold``); a card played earlier in the deal stays seen once it
    is gathered. Where the fold stops (a bad log), nothing more is face up."""

    def __init__(self, records: Sequence[Sequence[Any]], seat: int | None) -> None:
        self._folded = fold(records)
        self._seat = seat
        self._seen: set[str] = set()
        self._deals = 0
        self._shown: set[str] = set()

    def after(self, seq: Any) -> set[str]:
        """The cards face up for the viewer once the record ``seq`` is taken."""
        try:
            for folded in self._folded:
                self._take(folded)
                if folded.seq == seq:
                    return set(self._shown)
        except ReplayError:
            self._folded = iter(())
        self._seen, self._shown = set(), set()
        return set()

    def _take(self, folded: Folded) -> None:
        if folded.kind not in (EventType.MATCH_STARTED, EventType.DECISION):
            self._shown = set(self._seen)
            return
        view = seat_view(folded.game, folded.state, self._seat)
        if folded.kind == EventType.DECISION and len(folded.state.orders) > self._deals:
            # A new deal: the one just ended is summarised under last_*, the rest is new.
            self._shown = self._seen | face_up_cards(view, with_summaries=True)
            self._seen = face_up_cards(view, with_summaries=False)
        else:
            self._seen |= face_up_cards(view, with_summaries=False)
            self._shown = set(self._seen)
        self._deals = len(folded.state.orders)


def visible_steps(records: Sequence[Sequence[Any]], lens: Lens) -> Iterator[dict[str, Any]]:
    """The position after each number of decisions (0 to all), as ``lens`` shows it.

    Lazy, one fold for the whole log: a caller asking for step ``n`` folds ``n`` decisions.
    ``ReplayError`` if the chain is broken, the rules version differs, or a decision does
    not apply (then at the step it fails).
    """
    failures = chain_failures(records)
    if failures:
        raise ReplayError(failures)
    steps = sum(1 for record in records if record[1] == EventType.DECISION)
    decisions = (
        event["payload"]
        for event in iter_visible_events(records, lens)
        if event["type"] == EventType.DECISION
    )
    last_decision = None
    for step, position in enumerate(decision_positions(records)):
        if step:
            last_decision = next(decisions)
        state = position.state
        yield {
            "step": step,
            "steps": steps,
            "to_play": state.to_play,
            "scores": state.scores,
            "winner": state.winner,
            "last_decision": last_decision,
            "public": position.public,
            "observations": visible_observations(position, lens) or None,
        }


def visible_observations(position: Position, lens: Lens) -> dict[str, Any]:
    """The observations of a replayed position as ``lens`` shows them, by seat."""
    if lens.seat is not None:
        return {str(lens.seat): position.observations[lens.seat]}
    if lens.deal_in_play:
        return {}
    return {str(seat): observation for seat, observation in enumerate(position.observations)}
