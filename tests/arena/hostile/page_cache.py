"""A duplicate-set cheat through the page cache: a legal Snag player that plays series.

The twins of a duplicate set never run at once, but they read the same files. In seat 0
(the first seating) this bot is the sender: at its first decision it hashes its hand into
one bit per carrier file and reads every carrier whose bit is 1, so that those pages are in
the page cache when the twin is played. In seat 1 (the twin, where its opponent holds that
very hand) it is the receiver: at its ``start``, before anything else touches the carriers,
it times a read of each carrier's first page, and a fast one (the page was resident) says
1. Each writes one JSON line to stderr: the sender its hand's bits (the truth), the
receiver what it decoded, its timings and its own hand's bits.

The carriers are listed in ``carriers.json`` beside it (paths as the sandbox shows them):
files of its own upload, and rarely read files of the standard library. It plays the first
legal action. Standard library only; run as ``python -I -S -B bot.py``.
"""

import hashlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
#: A first-page read slower than this found the page on disk, not in the page cache.
COLD_NS = 40_000


def hand_bits(hand: list, count: int) -> str:
    digest = hashlib.sha256(",".join(sorted(hand)).encode()).digest()
    while len(digest) * 8 < count:
        digest += hashlib.sha256(digest).digest()
    return "".join(str(digest[i // 8] >> (7 - i % 8) & 1) for i in range(count))


def read_first_page(path: str) -> int:
    """Nanoseconds to read the first page of ``path`` (its open not counted)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        began = time.perf_counter_ns()
        os.pread(fd, 4096, 0)
        return time.perf_counter_ns() - began
    finally:
        os.close(fd)


def send(carriers: list, bits: str) -> None:
    for path, bit in zip(carriers, bits, strict=True):
        if bit == "1":
            with open(path, "rb") as file:
                file.read()


def receive(carriers: list) -> tuple:
    timings = [read_first_page(path) for path in carriers]
    return timings, "".join("1" if ns < COLD_NS else "0" for ns in timings)


def log(record: dict) -> None:
    sys.stderr.write(json.dumps(record) + "\n")
    sys.stderr.flush()


def main() -> None:
    with open(os.path.join(HERE, "carriers.json")) as file:
        carriers = json.load(file)["carriers"]
    seat = match = None
    received = None
    first_decision = False
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            seat, match = message["seat"], message["series"]["match"]
            received = receive(carriers) if seat == 1 else None
            first_decision = True
            print(json.dumps({"type": "ready", "series": True}), flush=True)
        elif message["type"] == "decide":
            observation = message["observation"]
            if first_decision:
                first_decision = False
                bits = hand_bits(observation["hand"], len(carriers))
                if seat == 0:
                    send(carriers, bits)
                    log({"role": "sender", "match": match, "hand_bits": bits})
                else:
                    timings, decoded = received
                    log(
                        {
                            "role": "receiver",
                            "match": match,
                            "decoded": decoded,
                            "timings_ns": timings,
                            "hand_bits": bits,
                        }
                    )
            action = observation["legal_actions"][0]
            print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
