"""A test bot that plays the first legal action after ``SECONDS`` of thought, so matches
are still running when the fault-injection test breaks something. It plays series (one
process for several matches) until its input ends. Standard library only."""

import json
import sys
import time

seconds = float(sys.argv[1])
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "series": True}), flush=True)
    elif message["type"] == "decide":
        time.sleep(seconds)
        print(json.dumps({"action": message["observation"]["legal_actions"][0]}), flush=True)
