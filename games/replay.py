"""Replay: fold a match's event log through its rules engine and check every step of it.

Pure: no Django, no I/O, no clock. The log is a sequence of ``(seq, type, payload, hash)``
records in seq order, in the format of the contracts ("Match event log"). The fold draws
no shuffle: it starts the engine with the recorded orders as stacked decks, as the contracts
prescribe, and checks separately that each recorded order is the one the options' stacked
deck or the seed calls for. A log that ends early (a running match, a crashed worker)
replays up to where it ends.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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
    """Check the hash chain and fold the whole log; every problem found is a failure."""
    failures = chain_failures(events)
    fold = _Fold(events)
    fold.run()
    return fold.result(failures)


def state_at(events: Sequence[Sequence[Any]], step: int) -> Position:
    """The position after the first ``step`` decisions (0: the start); ``ReplayError`` if the
    log is broken before it, ``ValueError`` if the log holds fewer decisions."""
    if type(step) is not int or step < 0:
        raise ValueError(f"step must be a non-negative integer, got {step!r}")
    fold = _Fold(events, decision_limit=step)
    fold.run()
    failures = chain_failures(events) + fold.failures
    if failures:
        raise ReplayError(failures)
    if fold.state is None or fold.decisions < step:
        raise ValueError(f"the log holds {fold.decisions} decisions, fewer than step {step}")
    observations = [fold.game.observation(fold.state, seat) for seat in (0, 1)]
    return Position(step, fold.state, observations)


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


class _Stop(Exception):
    """A fatal failure: the fold cannot go on past it."""


_MALFORMED = (KeyError, TypeError, AttributeError, IndexError, ValueError)


@dataclass(eq=False)
class _Fold:
    events: Sequence[Sequence[Any]]
    decision_limit: int | None = None
    failures: list[ReplayFailure] = field(default_factory=list)
    game: Game | None = None
    state: State | None = None
    decisions: int = 0
    shuffles: int = 0
    forfeit: Outcome | None = None
    finished: bool = False

    def run(self) -> None:
        with contextlib.suppress(_Stop):
            self._run()

    def _run(self) -> None:
        if not self.events:
            return
        seq, event_type, payload, _ = self.events[0]
        try:
            self._start(seq, event_type, payload)
        except _MALFORMED as error:
            self._fail(seq, FailureKind.LOG, f"malformed {event_type} payload: {error!r}")
        handlers = self._handlers()
        limit = self.decision_limit
        for seq, event_type, payload, _ in self.events[1:]:
            if self.decisions == limit and event_type == EventType.DECISION:
                return
            handler = handlers.get(event_type)
            if handler is None:
                self._fail(seq, FailureKind.LOG, f"unknown event type {event_type!r}")
            try:
                handler(seq, payload)
            except (KeyError, TypeError, AttributeError, IndexError) as error:
                self._fail(seq, FailureKind.LOG, f"malformed {event_type} payload: {error!r}")

    def _handlers(self) -> dict[str, Any]:
        return {
            EventType.SHUFFLE: self._shuffle,
            EventType.DECISION: self._decision,
            EventType.FORFEIT: self._forfeit,
            EventType.MATCH_FINISHED: self._finished,
            EventType.MATCH_STARTED: self._misplaced_start,
        }

    def _fail(self, seq: Any, kind: FailureKind, message: str, *, fatal: bool = True) -> None:
        self.failures.append(ReplayFailure(seq, kind, message))
        if fatal:
            raise _Stop

    # The start: game, rules version, shuffles, first state.

    def _start(self, seq: int, event_type: str, payload: Any) -> None:
        if event_type != EventType.MATCH_STARTED:
            self._fail(
                seq, FailureKind.LOG, f"the log opens with {event_type!r}, not match_started"
            )
        try:
            self.game = game = get_game(payload["game"])
        except ValueError as error:
            self._fail(seq, FailureKind.LOG, f"the log's game cannot be replayed: {error}")
        rules_version, seed, options = payload["rules_version"], payload["seed"], payload["options"]
        if not game.replays(rules_version):
            self._fail(
                seq,
                FailureKind.RULES_VERSION,
                f"the log was written under {game.id} rules version {rules_version!r}; this"
                f" engine plays version {game.rules_version!r}, so the log is not replayed",
            )
        recorded = self._check_shuffles(seq, game, seed, options)
        try:
            self.state = game.new_match(seed, {**options, "decks": recorded})
        except ValueError as error:
            self._fail(seq, FailureKind.LOG, f"the engine cannot start this match: {error}")

    def _check_shuffles(self, seq: int, game: Game, seed: Any, options: Any) -> list[Any]:
        """Check each recorded order against the one expected; return them all, in k order."""
        try:
            stacked = check_stacked_decks(options.get("decks", []), game.deck)
        except ValueError as error:
            self._fail(seq, FailureKind.LOG, f"the options are not valid: {error}")
        recorded = []
        for shuffle_seq, event_type, payload, _ in self.events:
            if event_type == EventType.SHUFFLE:
                try:
                    order = self._check_shuffle(
                        shuffle_seq, payload, game, seed, stacked, len(recorded)
                    )
                except _MALFORMED as error:
                    self._fail(
                        shuffle_seq, FailureKind.LOG, f"malformed shuffle payload: {error!r}"
                    )
                recorded.append(order)
        return recorded

    def _check_shuffle(
        self, seq: int, payload: Any, game: Game, seed: int, stacked: tuple, k: int
    ) -> tuple[str, ...]:
        order = tuple(payload["order"])
        if payload["k"] != k:
            message = f"shuffle k={payload['k']!r} where shuffle k={k} is due"
            self._fail(seq, FailureKind.SHUFFLE, message, fatal=False)
        if order != (stacked[k] if k < len(stacked) else seeded_order(game.deck, seed, k)):
            source = "the stacked deck of the options" if k < len(stacked) else "the seed"
            self._fail(
                seq,
                FailureKind.SHUFFLE,
                f"the order of shuffle {k} is not the one {source} gives",
                fatal=False,
            )
        return order

    # The events after the start.

    def _shuffle(self, seq: int, payload: Any) -> None:
        state = self._check_open(seq)
        self.shuffles += 1
        if self.shuffles > len(state.orders):
            self._fail(
                seq,
                FailureKind.SHUFFLE,
                f"shuffle {self.shuffles - 1} is recorded before the engine performs it",
            )

    def _decision(self, seq: int, payload: Any) -> None:
        # The hot path of replay: the checks of _check_open and _check_shuffles_recorded
        # are inlined, their messages are not.
        state = self.state
        if self.finished or self.forfeit is not None:
            self._check_open(seq)
        if self.shuffles != len(state.orders):
            self._check_shuffles_recorded(seq, state)
        seat, action = payload["seat"], payload["action"]
        if seat != state.to_play or type(seat) is not int:
            self._wrong_seat(seq, seat, state)
        try:
            self.state = self.game.apply(state, action)
        except IllegalAction as error:
            self._fail(seq, FailureKind.DECISION, f"seat {seat} made an illegal decision: {error}")
        self.decisions += 1

    def _wrong_seat(self, seq: int, seat: Any, state: State) -> None:
        if state.to_play is None:
            self._fail(seq, FailureKind.DECISION, "a decision after the match was decided")
        self._fail(
            seq, FailureKind.DECISION, f"seat {seat!r} decided; seat {state.to_play} was to play"
        )

    def _forfeit(self, seq: int, payload: Any) -> None:
        state = self._check_shuffles_recorded(seq, self._check_open(seq))
        seat, reason = payload["seat"], payload["reason"]
        if type(seat) is not int or seat not in (0, 1):
            self._fail(seq, FailureKind.FORFEIT, f"seat {seat!r} forfeits; seats are 0 and 1")
        if reason not in _FORFEIT_REASONS:
            self._fail(seq, FailureKind.FORFEIT, f"unknown forfeit reason {reason!r}")
        if state.to_play is None:
            self._fail(seq, FailureKind.FORFEIT, "a forfeit after the match was decided")
        self.forfeit = Outcome(1 - seat, state.scores, ResultReason.FORFEIT)

    def _finished(self, seq: int, payload: Any) -> None:
        if self.finished:
            self._fail(seq, FailureKind.LOG, "a second match_finished event")
        state = self._check_shuffles_recorded(seq, self.state)
        self.finished = True
        expected = self.forfeit or _played_outcome(state)
        if expected is None:
            self._fail(seq, FailureKind.RESULT, "match_finished while the match is still in play")
        if payload != expected.as_payload():
            self._fail(
                seq,
                FailureKind.RESULT,
                f"the log records {payload!r}; replay gives {expected.as_payload()!r}",
                fatal=False,
            )

    def _misplaced_start(self, seq: int, payload: Any) -> None:
        self._fail(seq, FailureKind.LOG, "a second match_started event")

    def _check_open(self, seq: int) -> State:
        """The current state, if the log may still go on with play."""
        if self.finished:
            self._fail(seq, FailureKind.LOG, "an event after match_finished")
        if self.forfeit is not None:
            self._fail(seq, FailureKind.LOG, "an event other than match_finished after a forfeit")
        return self.state

    def _check_shuffles_recorded(self, seq: int, state: State) -> State:
        """``state``, if every shuffle the engine has performed is recorded before ``seq``."""
        if self.shuffles != len(state.orders):
            self._fail(
                seq,
                FailureKind.SHUFFLE,
                f"the engine has performed {len(state.orders)} shuffles; the log records"
                f" {self.shuffles} before this event",
            )
        return state

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
