"""An honest bot that computes: ``cpu_bound.py [FRACTION]``.

At every decision it burns FRACTION (default 0.75) of its decision limit in CPU time of its
own, measured by ``time.process_time``, then answers with the first legal action. It never
runs while waiting for a message.
"""

import json
import sys
import time

FRACTION = float(sys.argv[1]) if len(sys.argv) > 1 else 0.75
budget = 0.0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        budget = FRACTION * message["limits"]["decision_seconds"]
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "decide":
        until = time.process_time() + budget
        while time.process_time() < until:
            pass
        print(json.dumps({"action": message["observation"]["legal_actions"][0]}), flush=True)
