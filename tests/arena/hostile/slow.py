"""Answers start, then sleeps far past any decision limit."""

import sys
import time

for line in sys.stdin:
    if '"start"' in line:
        print('{"type": "ready"}', flush=True)
    elif '"decide"' in line:
        time.sleep(60)
