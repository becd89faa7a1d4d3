"""Replay: the one fold of a match's event log through its rules engine (``fold``), and its
projections: the verification of every step (``replay``) and the positions (``state_at``).

Pure: no Django, no I/O, no clock. The log is a sequence of ``(seq, type, payload, hash)``
records in seq order, in the format of ``docs/event-log.md``. The fold draws no shuffle: it
starts the engine with the recorded orders as stacked decks, and the verification checks
separately that each recorded order is the one the options' stacked deck or the seed calls
for. A log that ends early (a running match, a crashed worker) folds up to where it ends; a
bad one stops the fold at its first bad record, by one rule (``fold``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, NoReturn

from .events import GENESIS_HASH, EventType, ForfeitReason, ResultReason, event_hash
from .rules import Game, IllegalAction, State, get_game
from .rules.decks import check_stacked_decks, seeded_order

_FORFEIT_REASONS = frozenset(ForfeitReason)


class FailureKind(enum.StrEnum):
    #: A seq out of order or a hash that does not chain: the log was altered.
    CHAIN = "chain"
    #: The log was written under another rules version; it is not replayed.
    RULES_VERSION = "rules_version"
    #: An event misplaced, malformed or of an unknown type.
    LOG = "log"
    SHUFFLE = "shuffle"
    DECISION = "decision"
    FORFEIT = "forfeit"
    #: The recorded result differs from the one replay computes.
    RESULT = "result"
    #: The match's stored row disagrees with its log (checked where the row is read).
    RECORD = "record"


@dataclass(frozen=True, slots=True)
class ReplayFailure:
    seq: int | None
    kind: FailureKind
    message: str

    def __str__(self) -> str:
        if self.seq is None:
            return f"{self.kind}: {self.message}"
        return f"seq {self.seq}: {self.kind}: {self.message}"


@dataclass(frozen=True, slots=True)
class Outcome:
    winner: int
    scores: list[int]
    reason: ResultReason

    def as_payload(self) -> dict[str, Any]:
        """The ``match_finished`` payload this outcome is recorded as."""
        return {"winner": self.winner, "scores": list(self.scores), "reason": str(self.reason)}


@dataclass(frozen=True, slots=True)
class ReplayResult:
    failures: tuple[ReplayFailure, ...]
    #: The state where the fold stopped: the end of the log, or the first fatal failure.
    state: State | None
    events: int
    decisions: int
    #: The result replay computes; None while the match is still in play.
    outcome: Outcome | None
    #: The log holds its ``match_finished`` event.
    finished: bool

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def rules_version_differs(self) -> bool:
        return any(failure.kind is FailureKind.RULES_VERSION for failure in self.failures)


@dataclass(frozen=True, slots=True)
class Position:
    """The state after ``step`` decisions, and what each seat observes there."""

    step: int
    state: State
    observations: list[dict[str, Any]]

    @property
    def public(self) -> dict[str, Any]:
        """What both seats see alike, plus each seat's hand size: a spectator's view.

        A field that differs between the two observations holds something one seat knows
        and the other does not (a hand, a card seen while drawing), so it is left out whole.
        """
        first, second = self.observations
        shared = {key: value for key, value in first.items() if second.get(key) == value}
        return {**shared, "hand_sizes": [len(first["hand"]), len(second["hand"])]}


class ReplayError(ValueError):
    """The log cannot be folded as far as asked."""

    def __init__(self, failures: Sequence[ReplayFailure]) -> None:
        super().__init__("; ".join(str(failure) for failure in failures))
        self.failures = tuple(failures)


def replay(events: Sequence[Sequence[Any]]) -> ReplayResult:
    """Check the hash chain and fold the whole log (``fold``), checking every event on the
    way: the verification. Every problem found is a failure; where the fold stops, so does
    the check."""
    check = _Verification(events)
    check.run()
    return check.result(chain_failures(events))


def state_at(events: Sequence[Sequence[Any]], step: int) -> Position:
    """The position after the first ``step`` decisions (0: the start); ``ReplayError`` if the
    chain is broken or the fold stops before it, ``ValueError`` if the log holds fewer
    decisions."""
    if type(step) is not int or step < 0:
        raise ValueError(f"step must be a non-negative integer, got {step!r}")
    failures = chain_failures(events)
    if failures:
        raise ReplayError(failures)
    for position in decision_positions(events):
        if position.step == step:
            return position
    decisions = sum(1 for event in events if event[1] == EventType.DECISION)
    raise ValueError(f"the log holds {decisions} decisions, fewer than step {step}")


def chain_failures(events: Sequence[Sequence[Any]]) -> list[ReplayFailure]:
    """Seqs that do not follow on, and hashes that do not chain from the stored one before."""
    failures = []
    prev_hash, expected_seq = GENESIS_HASH, 0
    for seq, type, payload, stored_hash in events:
        if seq != expected_seq:
            failures.append(ReplayFailure(seq, FailureKind.CHAIN, f"expected seq {expected_seq}"))
        try:
            computed = event_hash(prev_hash, seq, type, payload)
        except (TypeError, ValueError) as error:
            computed = f"unhashable ({error})"
        if computed != stored_hash:
            failures.append(
                ReplayFailure(seq, FailureKind.CHAIN, "the stored hash does not match the event")
            )
        prev_hash, expected_seq = stored_hash, seq + 1
    return failures


# The fold. ---------------------------------------------------------------------------------


class Folded(NamedTuple):
    """One record of a log, with the match around it (a tuple: one is made for every
    record, at a fraction of a dataclass's cost)."""

    seq: Any
    kind: str
    payload: Any
    game: Game
    #: The match once the record is taken: only a decision changes it.
    state: State
    #: The decisions applied up to this record, it included.
    step: int


def fold(records: Sequence[Sequence[Any]]) -> Iterator[Folded]:
    """The one fold of a match log (``seq, type, payload, hash`` records, in order): each
    record with the match around it. Verification (``replay``), the positions (``state_at``,
    ``decision_positions``), what each viewer sees (``matches.redaction``) and the viewer's
    chapters (``web.replays``) are projections of it. Lazy: a caller that needs the start of
    a log folds that far. Hashes are not its business (``chain_failures``).

    The engine starts from ``match_started``, with the recorded shuffle orders as stacked
    decks (no shuffle is drawn), and applies each decision in turn. **The stop rule**: the
    fold raises ``ReplayError`` naming the first record it cannot take, and why:

    - a log that does not open with a ``match_started`` the engine can start (a known game,
      a rules version it plays, options and shuffle orders it accepts);
    - a decision that is malformed, by the seat not to play, or that the rules refuse;
    - a shuffle recorded before the engine performs it, or an event after a shuffle the
      engine performed but the log left out;
    - an event of an unknown type, a second ``match_started``, anything after
      ``match_finished``, anything but ``match_finished`` after a ``forfeit``.

    A log that merely ends early (a running match, a crashed worker) folds to where it ends.
    """
    if not records:
        return
    game, state, started = _fold_start(records)
    yield started
    #: The forfeit or match_finished that ended the log, once one has.
    step, shuffles, ended = 0, 0, None
    for seq, kind, payload, _ in records[1:]:
        if ended is not None:
            _after_the_end(seq, kind, ended)
        if kind == _DECISION:
            # The hot path of every fold: nothing here that a legal decision does not need.
            if shuffles != len(state.orders):
                _shuffles_missing(seq, state, shuffles)
            try:
                seat = payload["seat"]
                if seat != state.to_play or type(seat) is not int:
                    _wrong_seat(seq, seat, state)
                state = game.apply(state, payload["action"])
            except IllegalAction as error:
                _stop(seq, FailureKind.DECISION, f"seat {seat} made an illegal decision: {error}")
            except (KeyError, TypeError, AttributeError, IndexError) as error:
                _stop(seq, FailureKind.LOG, f"malformed decision payload: {error!r}")
            step += 1
        elif kind == _SHUFFLE:
            shuffles += 1
            if shuffles > len(state.orders):
                message = f"shuffle {shuffles - 1} is recorded before the engine performs it"
                _stop(seq, FailureKind.SHUFFLE, message)
        elif kind in (_FORFEIT, _FINISHED):
            if shuffles != len(state.orders):
                _shuffles_missing(seq, state, shuffles)
            ended = kind
        elif kind == EventType.MATCH_STARTED:
            _stop(seq, FailureKind.LOG, "a second match_started event")
        else:
            _stop(seq, FailureKind.LOG, f"unknown event type {kind!r}")
        yield _folded(Folded, (seq, kind, payload, game, state, step))


def decision_positions(records: Sequence[Sequence[Any]]) -> Iterator[Position]:
    """The position at the start and after each decision of the log, with both seats'
    observations (``fold``, lazily; ``ReplayError`` where it stops)."""
    for folded in fold(records):
        if folded.kind in (EventType.MATCH_STARTED, EventType.DECISION):
            state = folded.state
            yield Position(
                folded.step, state, [folded.game.observation(state, seat) for seat in (0, 1)]
            )


#: ``Folded`` made without its Python-level ``__new__``: one per record, on every fold's hot path.
_folded = tuple.__new__
_DECISION, _SHUFFLE = EventType.DECISION.value, EventType.SHUFFLE.value
_FORFEIT, _FINISHED = EventType.FORFEIT.value, EventType.MATCH_FINISHED.value


def _after_the_end(seq: Any, kind: str, ended: str) -> None:
    if ended == _FINISHED:
        _stop(seq, FailureKind.LOG, "an event after match_finished")
    if kind != _FINISHED:
        _stop(seq, FailureKind.LOG, "an event other than match_finished after a forfeit")


def _stop(seq: Any, kind: FailureKind, message: str) -> NoReturn:
    raise ReplayError([ReplayFailure(seq, kind, message)])


_MALFORMED = (KeyError, TypeError, AttributeError, IndexError, ValueError)


def _fold_start(records: Sequence[Sequence[Any]]) -> tuple[Game, State, Folded]:
    seq, kind, payload = records[0][0], records[0][1], records[0][2]
    if kind != EventType.MATCH_STARTED:
        _stop(seq, FailureKind.LOG, f"the log opens with {kind!r}, not match_started")
    try:
        game = get_game(payload["game"])
        rules_version, seed, options = payload["rules_version"], payload["seed"], payload["options"]
    except ValueError as error:
        _stop(seq, FailureKind.LOG, f"the log's game cannot be replayed: {error}")
    except _MALFORMED as error:
        _stop(seq, FailureKind.LOG, f"malformed match_started payload: {error!r}")
    if not game.replays(rules_version):
        _stop(
            seq,
            FailureKind.RULES_VERSION,
            f"the log was written under {game.id} rules version {rules_version!r}; this"
            f" engine plays version {game.rules_version!r}, so the log is not replayed",
        )
    orders = []
    for shuffle_seq, shuffle_kind, shuffle, *_ in records:
        if shuffle_kind == EventType.SHUFFLE:
            try:
                orders.append(tuple(shuffle["order"]))
            except _MALFORMED as error:
                _stop(shuffle_seq, FailureKind.LOG, f"malformed shuffle payload: {error!r}")
    try:
        state = game.new_match(seed, {**options, "decks": orders})
    except _MALFORMED as error:
        _stop(seq, FailureKind.LOG, f"the engine cannot start this match: {error}")
    return game, state, Folded(seq, kind, payload, game, state, 0)


def _wrong_seat(seq: Any, seat: Any, state: State) -> NoReturn:
    if state.to_play is None:
        _stop(seq, FailureKind.DECISION, "a decision after the match was decided")
    _stop(seq, FailureKind.DECISION, f"seat {seat!r} decided; seat {state.to_play} was to play")


def _shuffles_missing(seq: Any, state: State, shuffles: int) -> NoReturn:
    _stop(
        seq,
        FailureKind.SHUFFLE,
        f"the engine has performed {len(state.orders)} shuffles; the log records"
        f" {shuffles} before this event",
    )


# Verification: the fold, and what it checks on the way. ------------------------------------


class _Stop(Exception):
    """A fatal failure: the check cannot go on past it."""


@dataclass(eq=False)
class _Verification:
    """``replay``'s projection of the fold: every shuffle's order against its seed or
    stacked deck, every forfeit and the recorded result; the fold's stop as a failure."""

    events: Sequence[Sequence[Any]]
    failures: list[ReplayFailure] = field(default_factory=list)
    state: State | None = None
    decisions: int = 0
    forfeit: Outcome | None = None
    finished: bool = False

    def run(self) -> None:
        last = None
        try:
            for last in fold(self.events):
                # The hot path: a decision or a shuffle has nothing more to check here.
                if last[1] != _DECISION and last[1] != _SHUFFLE:  # its kind
                    self._check(last)
        except ReplayError as error:
            self.failures.extend(error.failures)
        except _Stop:
            pass
        if last is not None:
            self.state, self.decisions = last.state, last.step

    def _check(self, record: Folded) -> None:
        if record.kind == EventType.MATCH_STARTED:
            self._check_shuffles(record)
        elif record.kind == EventType.FORFEIT:
            self._forfeit(record)
        elif record.kind == EventType.MATCH_FINISHED:
            self._finished(record)

    def _fail(self, seq: Any, kind: FailureKind, message: str, *, fatal: bool = True) -> None:
        self.failures.append(ReplayFailure(seq, kind, message))
        if fatal:
            raise _Stop

    def _check_shuffles(self, start: Folded) -> None:
        """Each recorded order against the one the stacked decks or the seed give."""
        game, seed, options = start.game, start.payload["seed"], start.payload["options"]
        try:
            stacked = check_stacked_decks(options.get("decks", []), game.deck)
        except ValueError as error:
            self._fail(start.seq, FailureKind.LOG, f"the options are not valid: {error}")
        k = 0
        for seq, event_type, payload, *_ in self.events:
            if event_type != EventType.SHUFFLE:
                continue
            if not isinstance(payload, dict) or "k" not in payload:
                self._fail(seq, FailureKind.LOG, f"malformed shuffle payload: {payload!r}")
            if payload["k"] != k:
                message = f"shuffle k={payload['k']!r} where shuffle k={k} is due"
                self._fail(seq, FailureKind.SHUFFLE, message, fatal=False)
            expected = stacked[k] if k < len(stacked) else seeded_order(game.deck, seed, k)
            if tuple(payload["order"]) != expected:
                source = "the stacked deck of the options" if k < len(stacked) else "the seed"
                message = f"the order of shuffle {k} is not the one {source} gives"
                self._fail(seq, FailureKind.SHUFFLE, message, fatal=False)
            k += 1

    def _forfeit(self, record: Folded) -> None:
        seq, state = record.seq, record.state
        try:
            seat, reason = record.payload["seat"], record.payload["reason"]
        except _MALFORMED as error:
            self._fail(seq, FailureKind.LOG, f"malformed forfeit payload: {error!r}")
        if type(seat) is not int or seat not in (0, 1):
            self._fail(seq, FailureKind.FORFEIT, f"seat {seat!r} forfeits; seats are 0 and 1")
        if reason not in _FORFEIT_REASONS:
            self._fail(seq, FailureKind.FORFEIT, f"unknown forfeit reason {reason!r}")
        if state.to_play is None:
            self._fail(seq, FailureKind.FORFEIT, "a forfeit after the match was decided")
        self.forfeit = Outcome(1 - seat, state.scores, ResultReason.FORFEIT)

    def _finished(self, record: Folded) -> None:
        self.finished = True
        expected = self.forfeit or _played_outcome(record.state)
        if expected is None:
            message = "match_finished while the match is still in play"
            self._fail(record.seq, FailureKind.RESULT, message)
        if record.payload != expected.as_payload():
            self._fail(
                record.seq,
                FailureKind.RESULT,
                f"the log records {record.payload!r}; replay gives {expected.as_payload()!r}",
                fatal=False,
            )

    def result(self, chain: list[ReplayFailure]) -> ReplayResult:
        state = self.state
        outcome = self.forfeit or (None if state is None else _played_outcome(state))
        return ReplayResult(
            failures=tuple(sorted(chain + self.failures, key=_in_log_order)),
            state=state,
            events=len(self.events),
            decisions=self.decisions,
            outcome=outcome,
            finished=self.finished,
        )


def _in_log_order(failure: ReplayFailure) -> tuple[bool, int]:
    return (failure.seq is None, failure.seq if isinstance(failure.seq, int) else 0)


def _played_outcome(state: State) -> Outcome | None:
    if state.winner is None:
        return None
    return Outcome(state.winner, state.scores, ResultReason.PLAYED)
