"""Plays its first decision, then says why on stderr and exits with status 3."""

import json
import sys

decisions = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "decide":
        decisions += 1
        if decisions > 1:
            print("Traceback: deliberate crash in decision 2", file=sys.stderr, flush=True)
            sys.exit(3)
        action = message["observation"]["legal_actions"][0]
        print(json.dumps({"action": action}), flush=True)
