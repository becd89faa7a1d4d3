"""A Snag bot that tells its twin its hand through byte-range locks on a shared file.

Every sandbox binds the same standard library, so a lock on one of its files (opened
read-only: a read lock needs no more) is seen by every other sandbox on the host: ``F_GETLK``
answers which lock would conflict. In seat 0 the bot takes a read lock at the offset of
each card of its hand (rank * 4 + suit) on ``this.py`` and keeps its process, frozen between
the matches of its series, holding them; in seat 1 it tests a write lock at every offset,
and the offsets that conflict are the cards its twin held in seat 0, which its opponent
holds now. Both seats play the first legal action.

Writes to stderr, one JSON line each: ``{"hand": [...]}`` at its first decision of a match,
``{"encoded": N}`` in seat 0 and ``{"decoded": [...]}`` in seat 1, or the same key with
``null`` and ``"error"`` when the sandbox refuses the call. Standard library only, run as
``python -I -S -B``.
"""

import errno
import fcntl
import json
import os
import struct
import sys

RANKS = "23456789TJQKA"
SUITS = "SHDC"
CHANNEL = os.path.join(os.path.dirname(os.__file__), "this.py")
#: struct flock on 64-bit Linux: type, whence, start, length, pid (and padding).
FLOCK = "hhqqi4x"

held = []  # the channel's descriptors: closing one would drop every lock of the process


def card_index(card):
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def card_name(index):
    return RANKS[index // 4] + SUITS[index % 4]


def why(error):
    return f"{error.__class__.__name__}: {errno.errorcode.get(error.errno, error.errno)}"


def say(**what):
    print(json.dumps(what), file=sys.stderr, flush=True)


def encode(hand):
    try:
        fd = os.open(CHANNEL, os.O_RDONLY)
        held.append(fd)
        for card in hand:
            lock = struct.pack(FLOCK, fcntl.F_RDLCK, os.SEEK_SET, card_index(card), 1, 0)
            fcntl.fcntl(fd, fcntl.F_SETLK, lock)
    except OSError as error:
        say(encoded=None, error=f"F_SETLK {why(error)}")
    else:
        say(encoded=len(hand))


def decode():
    try:
        fd = os.open(CHANNEL, os.O_RDONLY)
        held.append(fd)
        cards = []
        for index in range(52):
            probe = struct.pack(FLOCK, fcntl.F_WRLCK, os.SEEK_SET, index, 1, 0)
            found = struct.unpack(FLOCK, fcntl.fcntl(fd, fcntl.F_GETLK, probe))
            if found[0] != fcntl.F_UNLCK:
                cards.append(card_name(index))
    except OSError as error:
        say(decoded=None, error=f"F_GETLK {why(error)}")
    else:
        say(decoded=sorted(cards))


def main():
    seat, first = 0, False
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            seat, first = message["seat"], True
            print(json.dumps({"type": "ready", "series": True}), flush=True)
        elif message["type"] == "decide":
            observation = message["observation"]
            if first:
                first = False
                hand = sorted(observation["hand"])
                say(hand=hand)
                if seat == 0:
                    encode(hand)
                else:
                    decode()
            action = observation["legal_actions"][0]
            print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
