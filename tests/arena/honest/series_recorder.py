"""Notes every ``start`` it receives on stderr: its process's token, its seat, its place in
the series. Plays the first legal action.

Arguments: ``series`` to declare that it plays series (otherwise it is a version-1 bot that
exits at ``end``), then optionally ``crash N`` to exit at its first decision of the
series' match N; ``quit`` to exit at each ``end`` although it declared series;
``bye N`` to write a last line and exit on reading the ``end`` of the series' match N;
``ponder [MS]`` to compute for MS (10 by default) milliseconds of CPU on reading each ``end``
before it notes it. On
reading each ``end`` it notes the result on stderr (``end match=M scores=[A, B]``), and when
its input ends, its last words (``input ended after match=M``).
"""

import json
import os
import sys
import time

TOKEN = os.urandom(8).hex()
args = sys.argv[1:]
series = "series" in args
quit_at_end = "quit" in args
crash_at = int(args[args.index("crash") + 1]) if "crash" in args else None
bye_at = int(args[args.index("bye") + 1]) if "bye" in args else None
ponder = "ponder" in args
ponder_args = args[args.index("ponder") + 1 :] if ponder else []
ponder_seconds = (
    int(ponder_args[0]) / 1000 if ponder_args[:1] and ponder_args[0].isdigit() else 0.01
)

position = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        position = message["series"]["match"]
        matches = message["series"]["matches"]
        print(
            f"start process={TOKEN} seat={message['seat']} match={position}/{matches}",
            file=sys.stderr,
            flush=True,
        )
        print(json.dumps({"type": "ready", "series": series}), flush=True)
    elif message["type"] == "decide":
        if position == crash_at:
            print(f"deliberate crash in match {position}", file=sys.stderr, flush=True)
            sys.exit(3)
        action = message["observation"]["legal_actions"][0]
        print(json.dumps({"action": action}), flush=True)
    elif message["type"] == "end":
        if ponder:
            until = time.process_time() + ponder_seconds
            while time.process_time() < until:
                pass
        print(f"end match={position} scores={message['scores']}", file=sys.stderr, flush=True)
        if position == bye_at:
            print(f"bye after match={position}", file=sys.stderr, flush=True)
            break
        if quit_at_end or not series:
            break
else:
    print(f"input ended after match={position}", file=sys.stderr, flush=True)
