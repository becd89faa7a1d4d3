"""Reads its start message and never answers it."""

import sys
import time

sys.stdin.readline()
time.sleep(60)
