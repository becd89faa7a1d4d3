"""Steals its opponent's time with helpers.

``time_thief.py [steal | sleep FACTOR] [SPINNERS_PER_CPU] [every]``

At its first decision it forks SPINNERS_PER_CPU (default 4) helpers per CPU it may use; each
calls ``setsid`` (leaving the bot's process group and session) and spins forever. It answers
every decision with the first legal action.

- ``steal`` (the default): it stops its helpers (SIGSTOP) while it decides and continues
  them (SIGCONT) just before answering, so that they spin while its opponent thinks.
- ``sleep FACTOR``: its helpers are never stopped; at its first decision it sleeps FACTOR
  times the time it is allowed before answering, while they spin. ``sleep 2 0`` is a bot
  that merely sleeps, with no helper at all; ``every`` sleeps so at every decision.
"""

import json
import os
import signal
import sys
import time

args = sys.argv[1:]
MODE = args.pop(0) if args else "steal"
SLEEP_FACTOR = float(args.pop(0)) if MODE == "sleep" else 0.0
PER_CPU = int(args.pop(0)) if args else 4
EVERY = "every" in args


def spin():
    os.setsid()
    os.close(0)
    os.close(1)
    while True:
        pass


def fork_helpers():
    helpers = []
    for _ in range(PER_CPU * len(os.sched_getaffinity(0))):
        pid = os.fork()
        if pid == 0:
            spin()
        helpers.append(pid)
    return helpers


def signal_all(helpers, number):
    for pid in helpers:
        os.kill(pid, number)


helpers = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "decide":
        first = helpers is None
        if first:
            helpers = fork_helpers()
        if MODE == "steal":
            signal_all(helpers, signal.SIGSTOP)
        elif first or EVERY:
            time.sleep(SLEEP_FACTOR * message["time_left"])
        action = message["observation"]["legal_actions"][0]
        if MODE == "steal":
            signal_all(helpers, signal.SIGCONT)
        print(json.dumps({"action": action}), flush=True)
