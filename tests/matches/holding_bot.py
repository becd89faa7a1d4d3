"""A test bot that plays the first legal action, except that the second of its processes
to start (the one playing the second seating of a set, whose twin is over: twins never
overlap) holds at its twelfth decision (within its time limits) until told to go on.

Usage: holding_bot.py HOLD_DIR. The first process to start creates HOLD_DIR/started; the
hold is claimed by creating HOLD_DIR/held; the bot goes on once HOLD_DIR/release exists.
Standard library only.
"""

import json
import os
import sys
import time

hold_dir = sys.argv[1]
decisions = 0
try:
    os.close(os.open(os.path.join(hold_dir, "started"), os.O_CREAT | os.O_EXCL))
    may_hold = False
except FileExistsError:
    may_hold = True
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decisions += 1
        if decisions == 12 and may_hold:
            try:
                os.close(os.open(os.path.join(hold_dir, "held"), os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                while not os.path.exists(os.path.join(hold_dir, "release")):
                    time.sleep(0.1)
        action = message["observation"]["legal_actions"][0]
        print(json.dumps({"action": action}), flush=True)
    elif message["type"] == "end":
        break
