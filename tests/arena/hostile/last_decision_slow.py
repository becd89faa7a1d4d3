"""Plays quickly, but once its hand is empty (the takes of a deal's last trick) it sleeps.

In a Snag match to 1 point that ends with its first deal, that is only the last decisions.
"""

import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "decide":
        observation = message["observation"]
        if not observation["hand"]:
            time.sleep(60)
        print(json.dumps({"action": observation["legal_actions"][0]}), flush=True)
