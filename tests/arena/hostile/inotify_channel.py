"""A Snag bot that learns its opponent's hand through inotify watches on shared files.

Every sandbox binds the same standard library, and an inotify watch is kept on the file's
inode: it sees the opens of every other sandbox. When its process starts, the bot watches
52 files of the standard library that nothing else opens (``lib2to3/fixes/fix_*.py``), one
per card, for ``IN_OPEN``; the events queue in its inotify instance while it is frozen
between the matches of its series. In seat 0 it opens the files of the cards of its hand; in
seat 1 it reads the queued events: the files its twin opened in seat 0 name the cards that
its opponent holds now. Both seats play the first legal action.

Writes to stderr, one JSON line each: ``{"hand": [...]}`` at its first decision of a match,
``{"encoded": N}`` in seat 0 and ``{"decoded": [...]}`` in seat 1, or the same key with
``null`` and ``"error"`` when the sandbox refuses the call. Standard library only (ctypes
for the calls Python lacks), run as ``python -I -S -B``.
"""

import ctypes
import errno
import json
import os
import struct
import sys

RANKS = "23456789TJQKA"
SUITS = "SHDC"
FIXES = os.path.join(os.path.dirname(os.__file__), "lib2to3", "fixes")
CHANNEL = sorted(os.path.join(FIXES, n) for n in os.listdir(FIXES) if n.startswith("fix_"))[:52]
IN_OPEN = 0x20
IN_NONBLOCK = os.O_NONBLOCK
EVENT = "iIII"  # wd, mask, cookie, length of the name that follows

libc = ctypes.CDLL(None, use_errno=True)


def card_index(card):
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def card_name(index):
    return RANKS[index // 4] + SUITS[index % 4]


def say(**what):
    print(json.dumps(what), file=sys.stderr, flush=True)


def failed(call):
    number = ctypes.get_errno()
    return f"{call}: {errno.errorcode.get(number, number)}"


def watch():
    """The inotify descriptor and each watch's card, or the error that refused them."""
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0:
        return None, failed("inotify_init1")
    cards = {}
    for index, path in enumerate(CHANNEL):
        wd = libc.inotify_add_watch(fd, path.encode(), IN_OPEN)
        if wd < 0:
            return None, failed("inotify_add_watch")
        cards[wd] = index
    return (fd, cards), None


def encode(hand):
    for card in hand:
        os.close(os.open(CHANNEL[card_index(card)], os.O_RDONLY))
    say(encoded=len(hand))


def decode(watches, error):
    if watches is None:
        say(decoded=None, error=error)
        return
    fd, cards = watches
    seen = set()
    try:
        while True:
            events = os.read(fd, 65536)
            offset = 0
            while offset < len(events):
                wd, mask, _, length = struct.unpack_from(EVENT, events, offset)
                offset += struct.calcsize(EVENT) + length
                if mask & IN_OPEN and wd in cards:
                    seen.add(cards[wd])
    except BlockingIOError:
        pass
    say(decoded=sorted(card_name(index) for index in seen))


def main():
    watches, error = watch()
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
                    decode(watches, error)
            action = observation["legal_actions"][0]
            print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
