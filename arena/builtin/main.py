"""A built-in bot: the protocol loop around one strategy from ``strategies/``.

Usage: ``python -I -S -B arena/builtin/main.py STRATEGY [SEED]``. Standard library only, so it
runs wherever a submitted bot runs. ``-I`` leaves the script's folder off ``sys.path``, so it
is put there explicitly to import ``strategies.<STRATEGY>``. Without SEED the strategy's
random generator is seeded from the operating system. With SEED it is seeded again at each
``start``, with SEED + N - 1 for match N of a series: a series plays the very matches that
fresh processes seeded SEED, SEED + 1, ... would (the benchmark compares the two).
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable, Iterable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import strategies  # noqa: E402  (needs the path above)


def play(choose: Callable, seed: int | None, lines: Iterable[str], write: Callable) -> None:
    """Answer protocol messages until the end of input: a series of matches, each from its
    ``start`` to its ``end`` (protocol version 2; the strategies keep nothing between them)."""
    rng = random.Random(seed)
    for line in lines:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            if seed is not None:
                rng.seed(seed + message.get("series", {}).get("match", 1) - 1)
            write({"type": "ready", "series": True})
        elif kind == "decide":
            write({"action": choose(message["observation"], rng)})


def write_line(message: dict) -> None:
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3):
        sys.exit("usage: main.py STRATEGY [SEED]")
    choose = strategies.load(argv[1])
    play(choose, int(argv[2]) if len(argv) == 3 else None, sys.stdin, write_line)


if __name__ == "__main__":
    main(sys.argv)
