"""Reading wrk's report for the load rows of make bench."""

from __future__ import annotations

import pytest

from ops.page_benchmarks import parse_wrk

REPORT = """Running 5s test @ http://127.0.0.1:8765/tournaments/1/
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     9.21ms    6.02ms  71.43ms   86.08%
    Req/Sec     1.76k   180.33     2.10k    71.00%
  Latency Distribution
     50%    7.80ms
     75%   10.41ms
     90%   15.29ms
     99%   {p99}
  17531 requests in 5.01s, 341.12MB read
{extra}Requests/sec:   3498.84
Transfer/sec:     68.11MB
"""


def test_it_reads_the_rate_and_the_99th_percentile_in_milliseconds():
    figures = parse_wrk(REPORT.format(p99="50.13ms", extra=""))
    assert figures.requests_per_second == 3498.84
    assert figures.p99_ms == 50.13
    assert figures.errors == 0


def test_it_converts_microseconds_and_seconds():
    assert parse_wrk(REPORT.format(p99="950.00us", extra="")).p99_ms == pytest.approx(0.95)
    assert parse_wrk(REPORT.format(p99="1.21s", extra="")).p99_ms == pytest.approx(1210.0)


def test_failed_responses_and_socket_errors_count_as_errors():
    extra = (
        "  Socket errors: connect 0, read 2, write 0, timeout 14\n  Non-2xx or 3xx responses: 3\n"
    )
    assert parse_wrk(REPORT.format(p99="5ms", extra=extra)).errors == 19
