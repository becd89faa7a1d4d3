"""The Celery queues and priorities: who may take which work, and in what order.

**Queues.** Code from strangers goes only to workers whose sandbox can hold it. A worker
consumes ``DEFAULT_QUEUE`` always, and ``SANDBOXED_QUEUE`` only once its sandbox probe says
level ``full`` (``bots.worker_sandbox``, which probes again while it is below); so a worker on
a weaker host still plays built-in bots and runs the tick, and never takes an upload's check
or a match of uploaded code.

**Order.** On Redis each priority of each queue is a list of its own, and a worker asks for
the lists of one priority, in both queues, before any of the next
(``CELERY_BROKER_TRANSPORT_OPTIONS``). Within one priority the queues take turns
(``round_robin``): the queue a worker just took from goes to the back, so neither queue can
hold back the other at the same priority. The ladder's sets between built-in bots are the
only work that never runs out (each tick sends more); they go last, at ``FILLER_PRIORITY``,
so every piece of work an author waits for is taken ahead of all of them, at any tick.
"""

from __future__ import annotations

#: Celery's own default queue: matches of built-in bots only, the ticks.
DEFAULT_QUEUE = "celery"
#: Upload checks and every match with at least one uploaded bot in it.
SANDBOXED_QUEUE = "sandboxed"

#: Celery priorities on Redis: 0 is taken first. The ticks (sent by beat without a
#: priority, which Redis files under 0), upload checks and organised tournaments' matches.
FIRST_PRIORITY = 0
#: Challenges, version tests, and ladder sets with an uploaded bot in them.
AUTHOR_PRIORITY = 6
#: Ladder sets between built-in bots only: played whenever nothing else waits.
FILLER_PRIORITY = 9
#: Every priority Baize sends at, each one a list of its own on Redis.
PRIORITY_STEPS = list(range(FIRST_PRIORITY, FILLER_PRIORITY + 1))


def queue_for(*, runs_uploaded_code: bool) -> str:
    return SANDBOXED_QUEUE if runs_uploaded_code else DEFAULT_QUEUE
