"""A duplicate-set cheat through the dentry cache: a legal Snag player that plays series.

Looking up a name that does not exist leaves a negative dentry in the folder it was looked up
in, on a disk file system, and a later lookup of the same name is faster, in every sandbox
that binds that folder. The twins of a duplicate set never run at once, but they may see the
same folders: the bot's own ``/bot`` and its runtime's. In seat 0 (the first seating) this
bot is the sender: at its first decision of a match it hashes its hand into one bit per name
and looks up each name whose bit is 1. In seat 1 (the twin, where its opponent holds that
very hand) it is the receiver: at its ``start``, before anything else looks them up, it times
a lookup (``stat``) of each name; a fast one (the name was looked up before) says 1.

Half the names are in ``/bot``, half in the standard library's folder. A name is
``dentry-NONCE-MATCH-INDEX``: the nonce (``nonce.json`` beside the bot) makes a run's names
its own, and ``MATCH``, the match's place in its series, pairs the twins (the set player
plays a run's second seatings in the order of its first). The receiver first times names
nobody looked up, twice each, in each folder: its threshold is halfway between the medians of
the first lookups and of the second.

Each seat writes one JSON line to stderr per match: the sender its hand's bits (the truth),
the receiver what it decoded, its timings in ns, its thresholds and its own hand's bits. It
plays the first legal action. Standard library only; run as ``python -I -S -B bot.py``.
"""

import hashlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
#: The folders the names are looked up in, each holding half of them.
FOLDERS = (HERE, os.path.dirname(os.__file__))
BITS = 64
CALIBRATION = 24


def hand_bits(hand: list, count: int) -> str:
    digest = hashlib.sha256(",".join(sorted(hand)).encode()).digest()
    while len(digest) * 8 < count:
        digest += hashlib.sha256(digest).digest()
    return "".join(str(digest[i // 8] >> (7 - i % 8) & 1) for i in range(count))


def name(nonce: str, kind: str, match: int, index: int) -> str:
    folder = FOLDERS[index % len(FOLDERS)]
    return os.path.join(folder, f"{kind}-{nonce}-{match}-{index}")


def lookup_ns(path: str) -> int:
    began = time.perf_counter_ns()
    try:  # noqa: SIM105 - a context manager would add to what is timed
        os.stat(path)
    except FileNotFoundError:
        pass
    return time.perf_counter_ns() - began


def thresholds(nonce: str, match: int) -> list:
    """Per folder: halfway between a first lookup's time and a second's (medians)."""
    found = []
    for folder in range(len(FOLDERS)):
        paths = [
            name(nonce, "calibration", match, folder + len(FOLDERS) * i) for i in range(CALIBRATION)
        ]
        first = sorted(lookup_ns(path) for path in paths)
        second = sorted(lookup_ns(path) for path in paths)
        found.append((first[len(first) // 2] + second[len(second) // 2]) // 2)
    return found


def receive(nonce: str, match: int) -> tuple:
    limits = thresholds(nonce, match)
    timings = [lookup_ns(name(nonce, "dentry", match, index)) for index in range(BITS)]
    decoded = "".join(
        "1" if ns < limits[index % len(FOLDERS)] else "0" for index, ns in enumerate(timings)
    )
    return timings, decoded, limits


def send(nonce: str, match: int, bits: str) -> None:
    for index, bit in enumerate(bits):
        if bit == "1":
            lookup_ns(name(nonce, "dentry", match, index))


def log(record: dict) -> None:
    sys.stderr.write(json.dumps(record) + "\n")
    sys.stderr.flush()


def main() -> None:
    with open(os.path.join(HERE, "nonce.json")) as file:
        nonce = json.load(file)["nonce"]
    seat = match = None
    received = None
    first_decision = False
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            seat, match = message["seat"], message["series"]["match"]
            received = receive(nonce, match) if seat == 1 else None
            first_decision = True
            print(json.dumps({"type": "ready", "series": True}), flush=True)
        elif message["type"] == "decide":
            observation = message["observation"]
            if first_decision:
                first_decision = False
                bits = hand_bits(observation["hand"], BITS)
                if seat == 0:
                    send(nonce, match, bits)
                    log({"role": "sender", "match": match, "hand_bits": bits})
                else:
                    timings, decoded, limits = received
                    log(
                        {
                            "role": "receiver",
                            "match": match,
                            "decoded": decoded,
                            "timings_ns": timings,
                            "thresholds_ns": limits,
                            "hand_bits": bits,
                        }
                    )
            action = observation["legal_actions"][0]
            print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
