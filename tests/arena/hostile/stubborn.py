"""Ignores SIGTERM, leaves a forked child and a double-forked setsid grandchild behind.

Usage: ``stubborn.py PIDFILE``: writes the pids of itself, the child and the grandchild to
PIDFILE (one a line) once all three run, then plays the first legal action every time and
ignores ``end``. Every process it starts ignores SIGTERM and sleeps.
"""

import json
import os
import signal
import sys
import time


def linger():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(60)


def double_fork_setsid(pipe):
    intermediate = os.fork()
    if intermediate == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(pipe, f"{os.getpid()}\n".encode())
            linger()
        os._exit(0)
    os.waitpid(intermediate, 0)


signal.signal(signal.SIGTERM, signal.SIG_IGN)
read_end, write_end = os.pipe()
child = os.fork()
if child == 0:
    linger()
double_fork_setsid(write_end)
grandchild = int(os.read(read_end, 64))
with open(sys.argv[1], "w") as pidfile:
    pidfile.write(f"{os.getpid()}\n{child}\n{grandchild}\n")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "decide":
        print(json.dumps({"action": message["observation"]["legal_actions"][0]}), flush=True)
