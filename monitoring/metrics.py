"""Every Prometheus metric Baize records, defined once: names, labels, units and buckets.

Names follow Prometheus's conventions (``baize_`` first, base units: seconds, counters end in
``_total``) and every label takes few values: a game, a kind of tournament, a forfeit
reason, a priority, a queue, a runtime, a URL pattern, a status code. Nothing here knows the
domain: the layers above record through these objects, with their own label values.

In multiprocess mode (``PROMETHEUS_MULTIPROC_DIR`` set before the process starts, as
gunicorn's and Celery's are) each process writes its values to files there, and a scrape
adds them up (``monitoring.exposition``), so every gunicorn worker and every Celery pool
process counts. What is read at scrape time (queue depth, workers alive) is not here: it is
collected by ``monitoring.exposition``'s collectors.
"""

from __future__ import annotations

import os

from prometheus_client import Counter, Histogram

#: Where multiprocess mode keeps its files; None in a single process.
MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None

#: Seconds, from a quick match of built-in bots to the match wall cap's 20 minutes.
MATCH_SECONDS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200)
#: Seconds a piece of work waits in the queue, from at once to an hour.
WAIT_SECONDS = (0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
#: Seconds of a check or a build: a Python check in seconds, a C++ or Java build in minutes.
CHECK_SECONDS = (0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600)
#: Seconds of a web request, from a cached page to a slow one.
REQUEST_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
#: Decisions in one match: Snag's few dozen to a long Spades match's thousands.
DECISIONS = (10, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400)

MATCH_LABELS = ("game", "kind")

matches_started = Counter(
    "baize_matches_started", "Matches a worker claimed and began to play.", MATCH_LABELS
)
matches_finished = Counter(
    "baize_matches_finished", "Matches whose result was recorded.", MATCH_LABELS
)
matches_failed = Counter(
    "baize_matches_failed",
    "Running matches marked failed: their worker's error, or a lease that ran out.",
    MATCH_LABELS,
)
matches_replaced = Counter(
    "baize_matches_replaced",
    "Failed matches replaced by a fresh match with the same seed and seats.",
    MATCH_LABELS,
)
match_forfeits = Counter(
    "baize_match_forfeits",
    "Matches ended by a forfeit, by the forfeit's reason.",
    (*MATCH_LABELS, "reason"),
)
match_duration = Histogram(
    "baize_match_duration_seconds",
    "Wall-clock seconds from a match's claim to its result.",
    MATCH_LABELS,
    buckets=MATCH_SECONDS,
)
match_decisions = Histogram(
    "baize_match_decisions",
    "Decisions (the bots' moves) in a finished match.",
    ("game",),
    buckets=DECISIONS,
)
match_queue_wait = Histogram(
    "baize_match_queue_wait_seconds",
    "Seconds from a match's dispatch to a worker to its start, by Celery priority.",
    ("priority",),
    buckets=WAIT_SECONDS,
)

upload_checks = Counter(
    "baize_upload_checks",
    "Upload checks run, by runtime and outcome (ready, rejected, pending: retried later).",
    ("runtime", "outcome"),
)
upload_check_duration = Histogram(
    "baize_upload_check_duration_seconds",
    "Seconds of an upload's check, its build included.",
    ("runtime", "outcome"),
    buckets=CHECK_SECONDS,
)
builds = Counter(
    "baize_builds",
    "Builds of uploads for runtimes that build, by outcome (built, reused, failed).",
    ("runtime", "outcome"),
)
build_duration = Histogram(
    "baize_build_duration_seconds",
    "Seconds from an upload's check starting to its build being recorded.",
    ("runtime", "outcome"),
    buckets=CHECK_SECONDS,
)

http_requests = Counter(
    "baize_http_requests",
    "Web requests answered, by method, route (the URL pattern) and status code.",
    ("method", "route", "status"),
)
http_request_duration = Histogram(
    "baize_http_request_duration_seconds",
    "Seconds to answer a web request, by method and route.",
    ("method", "route"),
    buckets=REQUEST_SECONDS,
)

cache_gets = Counter(
    "baize_cache_gets", "Reads of the shared cache, by result (hit or miss).", ("result",)
)
