"""The Celery queues: code from strangers goes only to workers whose sandbox can hold it.

A worker consumes ``DEFAULT_QUEUE`` always, and ``SANDBOXED_QUEUE`` only once its sandbox
probe says level ``full`` (``bots.tasks``); so a worker on a weaker host still plays built-in
bots and runs the tick, and never takes an upload's check or a match of uploaded code.
"""

from __future__ import annotations

#: Celery's own default queue: matches of built-in bots only, the tick.
DEFAULT_QUEUE = "celery"
#: Upload checks and every match with at least one uploaded bot in it.
SANDBOXED_QUEUE = "sandboxed"


def queue_for(*, runs_uploaded_code: bool) -> str:
    return SANDBOXED_QUEUE if runs_uploaded_code else DEFAULT_QUEUE
