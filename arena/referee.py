"""The referee: drives one match between two bots and reports it as match events.

It starts both bots, asks the bot to move with its observation whenever a decision is
pending, checks every reply (a JSON object whose ``action`` the rules accept), times it,
and emits the events of the match log (``shuffle``, ``decision``, ``forfeit``,
``match_finished``) through a callback; storing them is the caller's business. A bot that
times out, crashes, answers badly or plays an illegal action forfeits and the other seat
wins. Both bots are always told the result (if still listening) and then killed.

A forfeit's ``detail`` is public, in the hash-chained log, so it holds only what the runner
saw: how the bot ended (its exit status), which limit ran out, what was wrong with its reply
line, the illegal action and the legal ones. What the bot wrote to stderr is its author's
alone: it is returned in ``MatchResult.stderr`` and never put in an event.

Only the bot to move runs (``docs/bot-protocol.md``, "Fair play"): each bot starts while the
other is frozen, and whenever the seat to move changes the other seat's bot is frozen whole
(a sandboxed bot's every process; a trusted one is left running). A frozen bot is thawed
once a line for it is in its pipe: its ``decide``, or its ``end`` (both are told the
result). A sandboxed bot's decision is charged the CPU time its own processes used
(``BotProcess.request``), and that is what the limits and the time bank count and what
``think_us`` records; a trusted bot's, the wall-clock time.

A player is a ``BotLauncher`` (a bot process, see ``arena.runner``), a ``StrategyPlayer``
(a strategy called in this process, for tests and benchmarks) or a ``ConnectionPlayer``
(its own connection: ``arena.replay``): the referee sees all through the same
``Connection`` interface.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import monotonic
from typing import Any, Protocol

from games.events import ForfeitReason, ResultReason, canonical_json
from games.rules import Game, IllegalAction, State

from .protocol import (
    BadReply,
    Message,
    action_of,
    check_ready,
    decide_message,
    decode_reply,
    encode,
    end_message,
    start_message,
)
from .runner import (
    BotError,
    BotExited,
    BotLauncher,
    BotProcess,
    BotTimedOut,
    pinned_to_cpu,
)

Emit = Callable[[str, dict[str, Any]], None]
Choose = Callable[[dict[str, Any], random.Random], Any]


@dataclass(frozen=True)
class Limits:
    """A bot's time: each decision gets ``decision_seconds``; time beyond that is drawn from
    its ``time_bank_seconds`` for the whole match (as Kaggle's overage time); an empty bank
    and a spent decision limit is a timeout. For a sandboxed bot these are CPU seconds, and
    past a decision's limit its time asleep too (``arena.runner.IdleMeter``), under a
    wall-clock backstop of ``arena.runner.WALL_BACKSTOP_FACTOR`` times as many. A whole match
    lasts at most ``match_seconds`` of wall clock (checked before each decision): past it,
    the bot whose decisions took longer forfeits on time."""

    decision_seconds: float = 1.0
    #: From spawning a bot to its ``ready``: Python itself takes ~11 ms to start.
    start_seconds: float = 5.0
    time_bank_seconds: float = 0.0
    match_seconds: float | None = None

    def __post_init__(self) -> None:
        if not (self.decision_seconds > 0 and self.start_seconds > 0):
            raise ValueError(f"time limits must be positive, got {self}")
        if self.time_bank_seconds < 0:
            raise ValueError(f"the time bank cannot be negative, got {self}")
        if self.match_seconds is not None and self.match_seconds <= 0:
            raise ValueError(f"a match's wall-clock cap must be positive, got {self}")


@dataclass(frozen=True)
class Forfeit:
    seat: int
    reason: ForfeitReason
    detail: str


@dataclass(frozen=True)
class MatchResult:
    winner: int
    scores: tuple[int, int]
    reason: ResultReason
    decisions: int
    forfeit: Forfeit | None = None
    #: What each seat's bot wrote to stderr during the match, capped (``BotProcess``).
    stderr: tuple[str, str] = ("", "")
    #: Seconds left in each seat's time bank at the end.
    time_bank_left: tuple[float, float] = (0.0, 0.0)


class Connection(Protocol):
    """One bot as the referee sees it. Failures raise ``BotError`` or ``BadReply``."""

    #: Whether ``decide`` only encodes its message: then the observation in it may share
    #: the state's own parts (``Game.observation``'s ``shared``).
    encodes: bool

    def open(self, start: Message) -> None:
        """Start the bot and send it ``start``."""

    def wait_ready(self, timeout: float) -> Message:
        """The bot's ``ready`` reply."""

    def freeze(self) -> None:
        """Stop the bot until it is sent a message: it is not its turn."""

    def decide(
        self, message: Message, timeout: float, limit: float | None = None
    ) -> tuple[Message, float]:
        """The bot's reply to ``message`` and the seconds it was charged; a frozen bot is
        thawed once ``message`` is written to it. Past ``limit`` (the decision's own limit)
        a sandboxed bot's time off the CPU by its own choice is charged too."""

    def end(self, message: Message) -> None:
        """Tell the bot the result if it still listens (thawed to read it); never raises,
        never waits."""

    def close(self) -> None: ...

    def match_over(self, *, keep: bool) -> str:
        """What the bot wrote to stderr during the match that just ended, up to its next wait
        for input (``BotProcess.settle``). Unless ``keep`` and it plays series (then it is
        frozen until the next ``open``), the bot is ended: a bot at the end of its series
        when its input ends, its last lines kept with the match (``BotProcess.finish``)."""

    def stderr_capture(self) -> str:
        """Everything kept of the bot's stderr for its author; complete once closed."""


@dataclass(frozen=True)
class StrategyPlayer:
    """A strategy called in this process: ``choose(observation, rng)`` returns an action.

    No process, no protocol lines: the fast path for tests and benchmarks. A decision
    cannot be interrupted, so a slow one forfeits on time only once it returns.
    """

    choose: Choose
    seed: int | None = None


@dataclass(frozen=True)
class ConnectionPlayer:
    """A player that brings its own ``Connection``: a recorded opponent, or a bot whose
    answers are compared with a record (``arena.replay``)."""

    connection: Connection


Player = BotLauncher | StrategyPlayer | ConnectionPlayer


class _Forfeited(Exception):
    def __init__(self, forfeit: Forfeit) -> None:
        super().__init__(forfeit.detail)
        self.forfeit = forfeit


def referee_match(
    game: Game,
    state: State,
    players: Sequence[Player],
    *,
    limits: Limits,
    emit: Emit,
    cpu: int | None = None,
    on_idle: Callable[[], None] | None = None,
) -> MatchResult:
    """Play ``state`` (a fresh ``game.new_match``) to its end between ``players[0]`` and ``[1]``.

    ``cpu`` pins this thread and both bots to one CPU for the match, the cheapest way to
    fast round trips. Emits ``shuffle``, ``decision``, ``forfeit`` and ``match_finished``.
    ``on_idle`` is called about every ``arena.runner.IDLE_SECONDS`` while a bot process
    thinks (a writer stores the moves made so far: spectators see them during a long think).
    """
    if len(players) != 2:
        raise ValueError(f"a match needs two players, got {len(players)}")
    with pinned_to_cpu(cpu):
        connections = [connect(player, on_idle) for player in players]
        match = _Match(game, state, connections, limits, emit)
        return match.run()


def referee_series_match(
    game: Game,
    state: State,
    connections: Sequence[Connection],
    *,
    limits: Limits,
    emit: Emit,
    position: tuple[int, int],
) -> MatchResult:
    """One match of a series (``arena.series``) on ``connections`` that outlive it.

    ``position`` is ``(match, matches)``, told to both bots in ``start``. After the match a
    bot that declared series and did not forfeit is kept, frozen; any other is closed, and
    its connection starts a fresh process for the next match.
    """
    return _Match(game, state, list(connections), limits, emit, position).run()


def connect(
    player: Player, on_idle: Callable[[], None] | None = None, *, series: bool = False
) -> Connection:
    """A connection to ``player``; with ``series``, one that may keep its bot across matches."""
    if isinstance(player, StrategyPlayer):
        return StrategyConnection(player.choose, random.Random(player.seed))
    if isinstance(player, ConnectionPlayer):
        return player.connection
    return ProcessConnection(player, on_idle, series=series)


class _Match:
    def __init__(
        self,
        game: Game,
        state: State,
        connections: list[Connection],
        limits: Limits,
        emit: Emit,
        position: tuple[int, int] = (1, 1),
    ) -> None:
        self.game, self.state, self.connections = game, state, connections
        self.limits, self.emit, self.position = limits, emit, position
        self.decisions = 0
        self.shuffles_emitted = 0
        self.bank = [limits.time_bank_seconds, limits.time_bank_seconds]
        #: The seat whose bot runs; the other's is frozen. ``None``: both are.
        self.running: int | None = None
        #: Wall-clock seconds each seat's decisions took, and when the match must be over.
        self.wall = [0.0, 0.0]
        self.ends_by = None if limits.match_seconds is None else monotonic() + limits.match_seconds

    def run(self) -> MatchResult:
        try:
            try:
                self._emit_new_shuffles()
                self._start_bots()
                while self.state.to_play is not None:
                    self._play_one_decision()
                result = self._finish(self.state.winner, ResultReason.PLAYED)
            except _Forfeited as forfeited:
                result = self._forfeit(forfeited.forfeit)
        except BaseException:
            self._close_all()
            raise
        # A bot that forfeited is ended at once; the series goes on with a fresh process in
        # its seat. After a series' last match the others end as the protocol ends them.
        forfeited = None if result.forfeit is None else result.forfeit.seat
        last = self.position[0] >= self.position[1]
        if forfeited is not None:
            self.connections[forfeited].close()
        stderr = tuple(
            connection.match_over(keep=seat != forfeited and not last)
            for seat, connection in enumerate(self.connections)
        )
        return dataclasses.replace(
            result, stderr=stderr, time_bank_left=(self.bank[0], self.bank[1])
        )

    def _start_bots(self) -> None:
        for seat, connection in enumerate(self.connections):
            message = start_message(
                self.game.id,
                seat,
                self.state.options,
                self.limits.decision_seconds,
                self.limits.time_bank_seconds,
                self.position,
            )
            # One at a time, the other frozen: a bot's start cannot slow its opponent's.
            try:
                connection.open(message)
                connection.wait_ready(self.limits.start_seconds)
            except (BotError, BadReply) as error:
                raise self._forfeited(seat, error, starting=True) from None
            connection.freeze()

    def _give_turn(self, seat: int) -> None:
        """Freeze the other seat's bot when the seat to move changes. The mover's bot is
        thawed by its ``decide``, once the line is in its pipe (``BotProcess.request``)."""
        if self.running != seat:
            self.connections[1 - seat].freeze()
            self.running = seat

    def _play_one_decision(self) -> None:
        seat = self.state.to_play
        connection = self.connections[seat]
        observation = self.game.observation(self.state, seat, shared=connection.encodes)
        allowed = self.limits.decision_seconds + self.bank[seat]
        message = decide_message(self.decisions + 1, observation, round(allowed, 6))
        self._check_match_clock()
        self._give_turn(seat)
        began = monotonic()
        try:
            reply, seconds = connection.decide(message, allowed, self.limits.decision_seconds)
            action = action_of(reply)
        except (BotError, BadReply) as error:
            raise self._forfeited(seat, error, starting=False) from None
        self.wall[seat] += monotonic() - began
        self._draw_from_bank(seat, seconds)
        try:
            self.state = self.game.apply(self.state, action)
        except IllegalAction:
            detail = self._illegal_detail(action)
            raise _Forfeited(Forfeit(seat, ForfeitReason.ILLEGAL_ACTION, detail)) from None
        self.decisions += 1
        self.emit("decision", {"seat": seat, "action": action, "think_us": round(seconds * 1e6)})
        self._emit_new_shuffles()

    def _check_match_clock(self) -> None:
        """Past the match's wall-clock cap, the bot whose decisions took longer forfeits."""
        if self.ends_by is None or monotonic() < self.ends_by:
            return
        slower = 0 if self.wall[0] >= self.wall[1] else 1
        detail = (
            f"the match passed its wall-clock cap of {self.limits.match_seconds:g} s; this"
            f" bot's decisions took {self.wall[slower]:.1f} s of it, its opponent's"
            f" {self.wall[1 - slower]:.1f} s"
        )
        raise _Forfeited(Forfeit(slower, ForfeitReason.TIMEOUT, detail))

    def _draw_from_bank(self, seat: int, seconds: float) -> None:
        overtime = seconds - self.limits.decision_seconds
        if overtime > 0:
            self.bank[seat] = max(0.0, self.bank[seat] - overtime)

    def _emit_new_shuffles(self) -> None:
        orders = self.state.orders
        for k in range(self.shuffles_emitted, len(orders)):
            self.emit("shuffle", {"k": k, "order": list(orders[k])})
        self.shuffles_emitted = len(orders)

    def _forfeited(self, seat: int, error: BotError | BadReply, *, starting: bool) -> _Forfeited:
        """What went wrong with the bot of ``seat``, as its forfeit.

        Raised from a plain ``except`` rather than a context manager: entering one costs
        about a microsecond, and a decision is the referee's hot path."""
        reason = ForfeitReason.START_FAILED if starting else _reason_for(error)
        detail = str(error)
        if isinstance(error, BotTimedOut):
            detail = f"{detail}: {self._limit_spent(seat, starting=starting)}"
            if not starting:
                self.bank[seat] = 0.0  # the timed-out decision used all of it
        return _Forfeited(Forfeit(seat, reason, detail))

    def _limit_spent(self, seat: int, *, starting: bool) -> str:
        """The limit a timed-out bot ran out of, with its numbers (before the bank is zeroed)."""
        limits = self.limits
        if starting:
            return f"the start limit of {limits.start_seconds:g} s ran out"
        decision = f"the decision limit of {limits.decision_seconds:g} s"
        bank = f"time bank of {limits.time_bank_seconds:g} s"
        if self.bank[seat] > 0:
            return f"{decision} and the {self.bank[seat]:.3f} s left in its {bank} ran out"
        return f"{decision} ran out, its {bank} already spent"

    def _illegal_detail(self, action: Any) -> str:
        legal = canonical_json(self.state.legal_actions())
        return f"{_json_excerpt(action)} is not legal here; the legal actions were {legal}"

    def _forfeit(self, forfeit: Forfeit) -> MatchResult:
        self.emit(
            "forfeit",
            {"seat": forfeit.seat, "reason": forfeit.reason.value, "detail": forfeit.detail},
        )
        return self._finish(1 - forfeit.seat, ResultReason.FORFEIT, forfeit)

    def _finish(
        self, winner: int, reason: ResultReason, forfeit: Forfeit | None = None
    ) -> MatchResult:
        scores = self.state.scores
        self.emit("match_finished", {"winner": winner, "scores": scores, "reason": reason.value})
        for connection in self.connections:
            connection.end(end_message(winner, scores, reason.value))  # thawed to read it
        return MatchResult(winner, (scores[0], scores[1]), reason, self.decisions, forfeit)

    def _close_all(self) -> None:
        for connection in self.connections:
            connection.close()


def _reason_for(error: Exception) -> ForfeitReason:
    if isinstance(error, BotTimedOut):
        return ForfeitReason.TIMEOUT
    if isinstance(error, BotExited):
        return ForfeitReason.CRASH
    return ForfeitReason.BAD_REPLY


def _json_excerpt(value: Any, limit: int = 200) -> str:
    """``value`` (parsed from a bot's reply) as JSON, cut to ``limit`` characters.

    ASCII escapes: a reply may hold NaN or a lone surrogate, which canonical JSON refuses.
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class ProcessConnection:
    """A bot process speaking protocol lines (``arena.runner.BotProcess``).

    With ``series`` the process may play several matches: a bot whose first ``ready`` says
    ``"series": true`` is kept, frozen, after a match it did not forfeit, and the next
    ``open`` empties its private folders (a sandboxed bot's ``/tmp`` and ``/dev/shm``) and
    sends its ``start`` to the same process. Otherwise each ``open`` starts one.
    """

    encodes = True

    def __init__(
        self,
        launcher: BotLauncher,
        on_idle: Callable[[], None] | None = None,
        *,
        series: bool = False,
    ) -> None:
        self._launcher = launcher
        self.on_idle = on_idle
        self._series = series
        self._process: BotProcess | None = None
        #: Whether the bot of the current process declared that it plays series.
        self._plays_series = False
        self._readies = 0
        #: The current match's ``start``, and whether it went to a kept process.
        self._start: Message = {}
        self._reused = False

    def open(self, start: Message) -> None:
        self._start, self._reused = start, False
        if self._process is not None and self._process.running:
            self._reused = True
            # Its memory stays; its files go. Where they cannot, a fresh process plays.
            with contextlib.suppress(BotExited, OSError):
                self._process.on_idle = self.on_idle
                self._process.empty_files()
                self._process.send(encode(start), timeout=1.0)
                return
        self._open_fresh()

    def _open_fresh(self) -> None:
        self.close()
        self._process = BotProcess(self._launcher.launch_spec())
        self._process.on_idle = self.on_idle
        self._plays_series, self._readies, self._reused = False, 0, False
        self._process.send(encode(self._start), timeout=1.0)

    def wait_ready(self, timeout: float) -> Message:
        try:
            line = self._process.receive(timeout)
        except BotExited:
            if not self._reused:
                raise
            # A kept bot that ended between two matches forfeits neither: a fresh one plays.
            self._open_fresh()
            line = self._process.receive(timeout)
        reply = decode_reply(line)
        series = check_ready(reply)
        if self._readies == 0:
            self._plays_series = series  # only a process's first ready says it
        self._readies += 1
        return reply

    @property
    def process(self) -> BotProcess | None:
        """The bot process of the current (or last) match."""
        return self._process

    @property
    def plays_series(self) -> bool:
        """Whether the current (or last) process's first ``ready`` said it plays series."""
        return self._plays_series

    def freeze(self) -> None:
        if self._process is not None:
            self._process.freeze()

    def decide(
        self, message: Message, timeout: float, limit: float | None = None
    ) -> tuple[Message, float]:
        line, seconds = self._process.request(encode(message), timeout, idle_after=limit)
        return decode_reply(line), seconds

    def end(self, message: Message) -> None:
        if self._process is not None:
            with contextlib.suppress(BotError):
                self._process.send(encode(message), timeout=0)

    def close(self) -> None:
        if self._process is not None:
            self._process.close()

    def match_over(self, *, keep: bool) -> str:
        process = self._process
        if process is None:
            return ""
        kept = keep and self._series and self._plays_series
        if kept and process.running:
            # What it writes on reading its ``end`` belongs to the match that ended.
            process.settle()
        if kept and process.running:
            stderr = process.stderr_capture()
            process.stderr_restart()
            process.freeze()
            return stderr
        if self._series and self._plays_series:
            # The end of its series: its input ends, and its last words are this match's.
            process.finish()
        else:
            # One match a process: what it writes on reading its ``end`` is the match's; its
            # interpreter's ending is nobody's wait.
            process.settle()
            process.close()
        stderr = process.stderr_capture()
        self._process = None
        return stderr

    def stderr_capture(self) -> str:
        return "" if self._process is None else self._process.stderr_capture()


class StrategyConnection:
    """A strategy in this process behind the ``Connection`` interface."""

    encodes = False  # the strategy gets the observation itself, and may change it

    def __init__(self, choose: Choose, rng: random.Random) -> None:
        self._choose = choose
        self._rng = rng
        self._error = ""

    def open(self, start: Message) -> None:
        pass

    def wait_ready(self, timeout: float) -> Message:
        return {"type": "ready", "series": True}

    def freeze(self) -> None:
        pass  # nothing runs between its calls

    def decide(
        self, message: Message, timeout: float, limit: float | None = None
    ) -> tuple[Message, float]:
        started = monotonic()
        try:
            action = self._choose(message["observation"], self._rng)
        except Exception as error:
            self._error = traceback.format_exc(limit=-3)
            # The exception's text is the strategy's own words: only its type is public.
            raise BotExited(f"the strategy raised {type(error).__name__}") from None
        seconds = monotonic() - started
        if seconds > timeout:
            raise BotTimedOut(f"the strategy took {seconds:.3f} s")
        return {"action": action}, seconds

    def end(self, message: Message) -> None:
        pass

    def close(self) -> None:
        pass

    def match_over(self, *, keep: bool) -> str:
        error, self._error = self._error, ""
        return error

    def stderr_capture(self) -> str:
        return self._error
