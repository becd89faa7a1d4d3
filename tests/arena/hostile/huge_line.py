"""Answers a decision with one endless line: 1 MiB and no newline, then waits."""

import sys
import time

for line in sys.stdin:
    if '"start"' in line:
        print('{"type": "ready"}', flush=True)
    elif '"decide"' in line:
        sys.stdout.write('{"action": "' + "x" * (1 << 20))
        sys.stdout.flush()
        time.sleep(60)
