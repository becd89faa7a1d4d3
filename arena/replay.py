"""Playing a logged match again with one seat's bot swapped: ``manage.py play --replay``.

The match is dealt again from its ``match_started`` event (game, seed, options, stacked
decks included), a bot plays one seat, and the other seat replays the decisions the log
records for it (``RecordedOpponent``). Each decision of the bot is compared with the one
recorded (``ComparedBot``); at the first that differs the log's game has left the table:
the replay stops there (``ReplayStopped``), or goes on with another bot in the opponent's
seat. Both are ``Connection``\\ s in the referee's terms (``arena.referee.ConnectionPlayer``),
so the match is refereed exactly as on the server. No Django here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games.events import EventType, canonical_json
from games.replay import FailureKind, ReplayFailure, replay

from .protocol import Message
from .referee import Connection


class LogUnplayable(ValueError):
    """The log cannot be played again: unreadable, withheld or broken."""


@dataclass(frozen=True)
class RecordedMatch:
    """What a log says of its match: enough to deal it again and replay its decisions."""

    game: str
    seed: int
    options: dict[str, Any]
    players: list[dict[str, Any]]
    #: Every decision, in order: ``(seat, action)``; decision N (from 1) is ``[N - 1]``.
    decisions: list[tuple[int, dict[str, Any]]]
    #: The ``match_finished`` payload; None for a log cut short.
    finished: dict[str, Any] | None
    #: Problems of the hash chain: the log was changed, or is a view with parts withheld.
    chain_failures: tuple[ReplayFailure, ...] = ()

    def bot_seed(self, seat: int) -> int | None:
        """The seed the built-in bot in ``seat`` played with, if it was one and is recorded."""
        return self.players[seat].get("bot_seed") if seat < len(self.players) else None

    def seat_decisions(self, seat: int) -> int:
        return sum(1 for mover, _ in self.decisions if mover == seat)


def read_log(lines: Iterable[str]) -> RecordedMatch:
    """The match of a log file: JSON lines (``GET /api/matches/{id}/log/``), or one JSON
    list of events, or a page of ``GET /api/matches/{id}/events/`` (its ``results``)."""
    text = "".join(lines)
    events = _events_of(text)
    if not events or events[0].get("type") != EventType.MATCH_STARTED:
        raise LogUnplayable("the log does not open with a match_started event")
    start = events[0].get("payload") or {}
    if start.get("seed") is None:
        raise LogUnplayable(
            "the log withholds the match's seed (it was taken while a match dealt these cards"
            " was in play): download it again once that match is over"
        )
    rows = [(e.get("seq"), e.get("type"), e.get("payload"), e.get("hash")) for e in events]
    result = replay(rows)
    chain = tuple(f for f in result.failures if f.kind is FailureKind.CHAIN)
    broken = [f for f in result.failures if f.kind is not FailureKind.CHAIN]
    if broken:
        raise LogUnplayable("the log does not replay: " + "; ".join(map(str, broken)))
    decisions = [
        (e["payload"]["seat"], e["payload"]["action"])
        for e in events
        if e.get("type") == EventType.DECISION
    ]
    finished = next(
        (e["payload"] for e in events if e.get("type") == EventType.MATCH_FINISHED), None
    )
    return RecordedMatch(
        game=start["game"],
        seed=start["seed"],
        options=dict(start.get("options") or {}),
        players=list(start.get("players") or []),
        decisions=decisions,
        finished=finished,
        chain_failures=chain,
    )


def _events_of(text: str) -> list[dict[str, Any]]:
    stripped = text.strip()
    try:
        if stripped.startswith(("[", "{")) and "\n" not in stripped:
            whole = json.loads(stripped)
            events = whole.get("results", [whole]) if isinstance(whole, dict) else whole
        elif stripped.startswith("["):
            events = json.loads(stripped)
        else:
            events = [json.loads(line) for line in stripped.splitlines() if line.strip()]
    except ValueError as error:
        raise LogUnplayable(f"the log is not JSON lines: {error}") from None
    if not all(isinstance(event, dict) for event in events):
        raise LogUnplayable("each line of the log must be one event, a JSON object")
    return events


@dataclass(frozen=True)
class Difference:
    """The first decision where the bot chose otherwise than the log records."""

    #: The decision's number in the match, from 1 (the ``request`` of its ``decide``).
    decision: int
    seat: int
    observation: Any
    recorded: Any
    chosen: Any


class ReplayStopped(Exception):
    """The replay cannot go on: the bot left the recorded game and no bot plays on for the
    opponent, or the log ends (a forfeit, a log cut short) before the match does."""


@dataclass
class Comparison:
    """What the two connections of a replay share: the record and what was found so far."""

    recorded: RecordedMatch
    seat: int
    #: The bot's decisions before this one (by number) are forced to the recorded ones.
    from_decision: int = 1
    #: Whether a bot plays on for the opponent after a difference.
    goes_on: bool = False
    difference: Difference | None = None
    #: The bot's decisions compared and found equal.
    equal: int = 0
    #: The bot's decisions before ``from_decision``, played as recorded.
    forced: int = 0

    def recorded_decision(self, number: int, seat: int) -> dict[str, Any]:
        decisions = self.recorded.decisions
        if number > len(decisions):
            ending = "ends" if self.recorded.finished is None else "is over"
            raise ReplayStopped(
                f"the log has no decision {number}: the recorded match {ending} after"
                f" {len(decisions)} decisions"
            )
        mover, action = decisions[number - 1]
        if mover != seat:
            raise ReplayStopped(
                f"decision {number} is seat {mover}'s in the log, seat {seat}'s here:"
                " this engine does not play the log's match"
            )
        return copy.deepcopy(action)


class ComparedBot:
    """The bot under test: its every answer compared with the recorded one."""

    def __init__(self, inner: Connection, comparison: Comparison) -> None:
        self._inner = inner
        self._comparison = comparison
        self.encodes = inner.encodes

    def open(self, start: Message) -> None:
        self._inner.open(start)

    def wait_ready(self, timeout: float) -> Message:
        return self._inner.wait_ready(timeout)

    def freeze(self) -> None:
        self._inner.freeze()

    def decide(
        self, message: Message, timeout: float, limit: float | None = None
    ) -> tuple[Message, float]:
        comparison = self._comparison
        reply, seconds = self._inner.decide(message, timeout, limit)
        if comparison.difference is not None:
            return reply, seconds
        number = message["request"]
        recorded = comparison.recorded_decision(number, comparison.seat)
        if number < comparison.from_decision:
            comparison.forced += 1
            return {"action": recorded}, seconds
        chosen = reply.get("action") if isinstance(reply, dict) else reply
        if _same(chosen, recorded):
            comparison.equal += 1
            return reply, seconds
        comparison.difference = Difference(
            number, comparison.seat, _plain(message["observation"]), recorded, chosen
        )
        if not comparison.goes_on:
            raise ReplayStopped(f"the bot chose otherwise at decision {number}")
        return reply, seconds

    def end(self, message: Message) -> None:
        self._inner.end(message)

    def close(self) -> None:
        self._inner.close()

    def match_over(self, *, keep: bool) -> str:
        return self._inner.match_over(keep=keep)

    def stderr_capture(self) -> str:
        return self._inner.stderr_capture()


class RecordedOpponent:
    """The other seat: the decisions the log records for it, then (after a difference)
    ``then``, a bot started only then, with the match's ``start``."""

    def __init__(
        self,
        seat: int,
        comparison: Comparison,
        then: Connection | None = None,
        start_seconds: float = 5.0,
    ) -> None:
        self._seat = seat
        self._comparison = comparison
        self._then = then
        self._start_seconds = start_seconds
        self._start: Message | None = None
        self._started = False
        self.encodes = True if then is None else then.encodes

    def open(self, start: Message) -> None:
        self._start = start

    def wait_ready(self, timeout: float) -> Message:
        return {"type": "ready", "series": False}

    def freeze(self) -> None:
        if self._started:
            self._then.freeze()

    def decide(
        self, message: Message, timeout: float, limit: float | None = None
    ) -> tuple[Message, float]:
        if self._comparison.difference is None:
            action = self._comparison.recorded_decision(message["request"], self._seat)
            return {"action": action}, 0.0
        if self._then is None:
            raise ReplayStopped("no bot plays on for the recorded opponent")
        if not self._started:
            self._started = True
            self._then.open(self._start)
            self._then.wait_ready(self._start_seconds)
        return self._then.decide(message, timeout, limit)

    def end(self, message: Message) -> None:
        if self._started:
            self._then.end(message)

    def close(self) -> None:
        if self._then is not None:
            self._then.close()

    def match_over(self, *, keep: bool) -> str:
        return self._then.match_over(keep=False) if self._started else ""

    def stderr_capture(self) -> str:
        return self._then.stderr_capture() if self._started else ""


def _same(chosen: Any, recorded: Any) -> bool:
    try:
        return canonical_json(chosen) == canonical_json(recorded)
    except (TypeError, ValueError):
        return False


def _plain(value: Any) -> Any:
    """A copy of ``value`` that later moves cannot change (observations may share the
    state's own parts)."""
    try:
        return json.loads(canonical_json(value))
    except (TypeError, ValueError):
        return repr(value)
