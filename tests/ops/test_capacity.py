"""The pieces of ``make capacity``, small: no worker is started and nothing is measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from games.rules import get_game
from ops.capacity import counters, report, workload


def test_the_workload_match_is_the_same_match_whatever_its_seed():
    game = get_game("snag")
    options = workload.workload_options()
    lengths = set()
    for seed in (1, 2, 3):
        state, decisions = game.new_match(seed, options), 0
        while state.to_play is not None:
            state, decisions = game.apply(state, state.legal_actions()[0]), decisions + 1
        lengths.add(decisions)
        # Every deal it plays is one of the stacked decks: no shuffle comes from the seed.
        assert len(state.orders) == len(options["decks"])

    assert lengths == {workload.workload_decisions()}


def test_the_sleeping_bot_answers_its_first_legal_action_and_plays_series(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_bytes(workload.sleeping_bot(0.0))
    lines = [
        {"type": "start", "seat": 0},
        {"type": "decide", "observation": {"legal_actions": [{"bar": "7H"}, {"bar": "2S"}]}},
    ]
    done = subprocess.run(
        [sys.executable, str(bot)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=30,
    )

    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies == [{"type": "ready", "series": True}, {"action": {"bar": "7H"}}]


@pytest.mark.django_db
def test_the_counters_count_statements_and_write_them_with_the_time(tmp_path):
    counters.install(tmp_path, "test")
    before = counters.snapshot()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    counters.write_now(tmp_path / f"test-{os.getpid()}.jsonl")

    assert counters.snapshot()["statements"] == before.get("statements", 0) + 1
    series = counters.read_series(tmp_path)
    assert all("t" in snapshot for snapshots in series.values() for snapshot in snapshots)


def test_counts_between_take_each_process_from_before_the_start_to_after_the_end():
    series = {
        "pool-1": [
            {"t": 0.0, "statements": 5},
            {"t": 10.0, "statements": 9},
            {"t": 20.0, "statements": 30, "transactions": 2},
            {"t": 30.0, "statements": 31, "transactions": 2},
        ],
        # Started after the run began: all its counts are the run's.
        "pool-2": [{"t": 12.0, "statements": 4}, {"t": 21.0, "statements": 7}],
        "consumer-3": [{"t": 1.0, "redis:BRPOP": 10}, {"t": 25.0, "redis:BRPOP": 14}],
    }

    counts = counters.counts_between(series, start=11.0, end=20.0)

    assert counts == {
        "pool": {"statements": 21 + 7, "transactions": 2},
        "consumer": {"redis:BRPOP": 4},
    }
    assert counters.round_trips(counts["pool"]) == 28 + 2 * 2
    assert counters.redis_commands(counts["consumer"]) == 4


def _run(workers: int, seconds: float) -> report.RunFigures:
    return report.RunFigures(
        workers=workers,
        matches=2 * workers,
        seconds=seconds,
        statements=40 * workers,
        round_trips=50 * workers,
        transactions=6 * workers,
        rows_written=20 * workers,
        wal_bytes=9000 * workers,
        wal_bytes_server=10_000 * workers,
        redis_consumer=6 * workers,
        redis_pool=0,
        redis_dispatch=workers,
        redis_round_trips=7 * workers,
        redis_server=10 * workers,
        log_bytes_per_match=2700.0,
        load_before=1.0,
        cpu_workers=0.2 * workers,
        cpu_postgres=0.01 * workers,
        cpu_redis=0.001 * workers,
        machine_busy=0.5,
    )


def test_the_table_gives_the_efficiency_against_n_times_the_rate_of_one(tmp_path):
    runs = [_run(1, 20.0), _run(2, 20.0), _run(4, 25.0)]

    rows = report.table_rows(runs)
    place = [name for name, _ in report.RATE_COLUMNS].index("efficiency")

    assert [row[place] for row in rows] == ["1.00", "1.00", "0.80"]
    assert report.markdown_table(runs).count("\n") == 2 * (2 + len(runs))  # two tables


def test_the_curve_is_a_png_where_matplotlib_is_installed(tmp_path):
    pytest.importorskip("matplotlib")
    path = Path(tmp_path) / "capacity.png"

    assert report.draw_curve([_run(1, 20.0), _run(2, 21.0)], path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
