"""What the matches app tells the layers above it, which it cannot name."""

from __future__ import annotations

from django.dispatch import Signal

#: Sent once a match's result is committed, with ``match_id`` and ``reason`` (a
#: ``games.events.ResultReason`` value): the ladder watches its new versions' first matches
#: (``ladder.services.ladder_match_watch``).
match_finished = Signal()
#: Sent once a worker's claim on a match is committed (its ``match_started`` event stored), with
#: ``match_id``, in the process that will play it: the monitoring counts it and its wait.
match_started = Signal()
