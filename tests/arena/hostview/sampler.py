"""Reads everything it can under /proc and /sys but its own processes' folders. Its first
sample is its baseline; it answers each line it is sent with one JSON object: how many
files it read, the paths it read (first answer only), and those whose bytes differ from the
baseline or that appeared or vanished since (at most 200).

A process's own folders (/proc/<pid>, /proc/self, /proc/thread-self and the links into
them, mounts and net) are left out by design: they show this sandbox's own processes,
which the test does not move, and their clocks and counters tick with its own reading.
"""

import hashlib
import json
import os
import sys

OWN = {"self", "thread-self", "mounts", "net"}


def readable(top):
    found = {}
    for folder, subfolders, files in os.walk(top):
        if folder == "/proc":
            subfolders[:] = [d for d in subfolders if not d.isdigit() and d not in OWN]
            files = [f for f in files if f not in OWN]
        subfolders[:] = [d for d in subfolders if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            try:
                with open(path, "rb") as file:
                    found[path] = hashlib.sha256(file.read()).hexdigest()
            except OSError:
                pass
    return found


baseline = None
for _line in sys.stdin:
    seen = {**readable("/proc"), **readable("/sys")}
    if baseline is None:
        baseline = seen
        print(json.dumps({"files": len(seen), "paths": sorted(seen)}), flush=True)
        continue
    moved = sorted(p for p in baseline.keys() | seen.keys() if baseline.get(p) != seen.get(p))
    print(json.dumps({"files": len(seen), "moved": moved[:200]}), flush=True)
