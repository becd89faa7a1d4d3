"""Plays legal Snag, and writes to stderr what no database column takes as text.

At every decision and at the end of each match it writes its process's environment as the
kernel gives it (``/proc/self/environ``: NUL-separated), raw NUL bytes and bytes that are not
UTF-8 (a stray continuation byte, a cut-short sequence, an encoded lone surrogate).
PostgreSQL refuses a NUL in any text value, where SQLite keeps it: the bot's stderr, its
check's log and its rejection's reason must be stored anyway, and the other seat's stderr
with them.
"""

import json
import os
import sys

#: NULs, a lone continuation byte, a cut-short three-byte sequence, an encoded surrogate.
GARBAGE = b"\0\0nul\0bytes\0 \x80 \xe2\x82 \xed\xb2\x80 \xff\xfe\0\n"


def spill(where: str) -> None:
    with open("/proc/self/environ", "rb") as environ:
        os.write(2, where.encode() + b": " + environ.read() + b"\n" + GARBAGE)


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "decide":
        spill(f"decision {message['request']}")
        action = message["observation"]["legal_actions"][0]
        print(json.dumps({"action": action}), flush=True)
    elif message["type"] == "end":
        spill("end")
