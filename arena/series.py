"""A series: two bots playing several matches in a row, one process per seat throughout.

Starting two interpreters is most of a short sandboxed match's cost (``docs/bench.md``).
A bot that says in its first ``ready`` that it plays series (protocol version 2,
``docs/bot-protocol.md``) is kept between the matches of a series, frozen, and gets the next
match's ``start`` in the same process; each match is still refereed on its own (its own
log, stderr, limits, time bank and CPU count). What the process keeps in memory persists;
its files do not: a sandboxed bot's private ``/tmp`` and ``/dev/shm`` are emptied before
each match after the first (``arena.sandbox.scratch``). A bot that did not declare series, or
that forfeited, is closed after its match and a fresh process plays its seat in the next one.

The seats are fixed for the whole series: a process always plays the same seat, so the
twin of a duplicate match (same deal, seats swapped) is never played by it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from games.rules import Game, State

from .referee import (
    Connection,
    Emit,
    Limits,
    MatchResult,
    Player,
    ProcessConnection,
    connect,
    referee_series_match,
)
from .runner import pinned_to_cpu


class Series:
    """The two seats' connections, kept open across ``play`` calls until ``close``.

    ``matches`` is the most this series will play, told to the bots in each ``start``;
    ``cpu`` pins the referee and every bot it starts to one CPU, as for one match.
    """

    def __init__(self, players: Sequence[Player], *, matches: int, cpu: int | None = None) -> None:
        if len(players) != 2:
            raise ValueError(f"a series needs two players, got {len(players)}")
        if matches < 1:
            raise ValueError(f"a series has at least one match, got {matches}")
        self.matches = matches
        self.played = 0
        self._cpu = cpu
        self._connections: list[Connection] = [connect(p, series=True) for p in players]

    def play(
        self,
        game: Game,
        state: State,
        *,
        limits: Limits,
        emit: Emit,
        on_idle: Callable[[], None] | None = None,
    ) -> MatchResult:
        """Referee the series' next match on ``state``; the bots that may stay are kept."""
        if self.played >= self.matches:
            raise ValueError(f"this series has played its {self.matches} matches")
        self.played += 1
        for connection in self._connections:
            if isinstance(connection, ProcessConnection):
                connection.on_idle = on_idle
        with pinned_to_cpu(self._cpu):
            return referee_series_match(
                game,
                state,
                self._connections,
                limits=limits,
                emit=emit,
                position=(self.played, self.matches),
            )

    def plays_series(self, seat: int) -> bool:
        """Whether the bot in ``seat`` said, in its current process's first ``ready``, that
        it plays series (a built-in bot played in this process: always)."""
        connection = self._connections[seat]
        return not isinstance(connection, ProcessConnection) or connection.plays_series

    def skip(self) -> None:
        """Count a match of the series that is not played here (another worker has it)."""
        self.played += 1

    def close(self) -> None:
        for connection in self._connections:
            connection.close()

    def __enter__(self) -> Series:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
