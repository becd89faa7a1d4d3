"""The example exchange of ``docs/bot-protocol.md``, recorded from a real match.

Two built-in bot processes play one Snag deal (target 1 point, a seed whose first deal
scores); every message the referee sends and every reply it reads is written down in the
protocol's own encoding. ``test_referee`` checks the document still holds it verbatim;
regenerate with ``python -m tests.arena.exchange``.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

from arena import referee
from arena.protocol import Message, encode
from arena.referee import Connection, Limits, Player, referee_match
from arena.runner import BuiltinLauncher
from games.rules import get_game

SEED = 2
OPTIONS = {"target": 1}
PLAYERS = (BuiltinLauncher("snag_heuristic"), BuiltinLauncher("random", seed=7))


class RecordingConnection:
    """A connection that writes down every message in both directions."""

    def __init__(self, inner: Connection, seat: int, transcript: list[str]) -> None:
        self.inner, self.seat, self.transcript = inner, seat, transcript
        self.encodes = inner.encodes

    def open(self, start: Message) -> None:
        self.note("->", start)
        self.inner.open(start)

    def wait_ready(self, timeout: float) -> Message:
        reply = self.inner.wait_ready(timeout)
        self.note("<-", reply)
        return reply

    def freeze(self) -> None:
        self.inner.freeze()

    def decide(
        self, message: Message, timeout: float, limit: float | None = None
    ) -> tuple[Message, float]:
        self.note("->", message)
        reply, seconds = self.inner.decide(message, timeout, limit)
        self.note("<-", reply)
        return reply, seconds

    def end(self, message: Message) -> None:
        self.note("->", message)
        self.inner.end(message)

    def close(self) -> None:
        self.inner.close()

    def match_over(self, *, keep: bool) -> str:
        return self.inner.match_over(keep=keep)

    def stderr_tail(self) -> str:
        return self.inner.stderr_tail()

    def stderr_capture(self) -> str:
        return self.inner.stderr_capture()

    def note(self, direction: str, message: Message) -> None:
        self.transcript.append(f"{self.seat}{direction} {encode(message).decode().rstrip()}")


def record_exchange() -> list[str]:
    """Every protocol line of the example match, as ``0-> {...}`` and ``0<- {...}``."""
    game = get_game("snag")
    transcript: list[str] = []
    seats = iter(range(2))

    def recording_connect(player: Player, on_idle=None) -> RecordingConnection:
        return RecordingConnection(real_connect(player, on_idle), next(seats), transcript)

    real_connect = referee.connect
    events: list[tuple[str, dict[str, Any]]] = []
    with mock.patch.object(referee, "connect", recording_connect):
        referee_match(
            game,
            game.new_match(SEED, OPTIONS),
            PLAYERS,
            limits=Limits(),
            emit=lambda kind, payload: events.append((kind, payload)),
        )
    return transcript


if __name__ == "__main__":
    print("\n".join(record_exchange()))
