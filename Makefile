# Every target builds the virtual environment first, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
GAME ?= snag
# make serve's port on 127.0.0.1: make serve PORT=8761
PORT ?= 8000
# Python caches compiled modules (and pytest its rewritten tests) in __pycache__/, ignored by
# git: a host that asks for none (PYTHONDONTWRITEBYTECODE) would have every process of the
# suite, the demo and the workers compile the project afresh.
unexport PYTHONDONTWRITEBYTECODE
# The demo, bench and local server run on the embedded default, where debugging is fine.
LOCAL := DEBUG=$${DEBUG:-1}

.PHONY: demo test test-deps test-fast bench bench-tests capacity strength lint format serve worker worker-only beat clean browser-deps load-deps sandbox-deps runtime-deps \
	deploy-check

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(PY) manage.py demo --game $(GAME)

# Debian packages for the tests and the bench, installed without starting, stopping or
# restarting any service, so that `make test` on a desktop leaves its running programs alone.
# Maintainer scripts act on services only through invoke-rc.d or deb-systemd-invoke, and both
# ask /usr/sbin/policy-rc.d first: one that answers 101 (refused) stands for the install's
# length (removed after), unless the host has its own. needrestart's apt hook is suspended, and no
# recommended package comes along (Chromium's would bring daemons: upower, udev). Idempotent.
POLICY_RC_D := /usr/sbin/policy-rc.d
define apt_install
apt-get update -q && if [ ! -e $(POLICY_RC_D) ]; then trap 'rm -f $(POLICY_RC_D)' EXIT && trap 'exit 130' INT TERM && printf '#!/bin/sh\nexit 101\n' >$(POLICY_RC_D) && chmod 755 $(POLICY_RC_D); fi && NEEDRESTART_SUSPEND=1 NEEDRESTART_MODE=l DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(1)
endef

# Chromium for the browser tests, and the fonts its pages are measured with.
browser-deps:
	@command -v chromium >/dev/null || ($(call apt_install,chromium fonts-liberation))

# wrk for the load rows of make bench.
load-deps:
	@command -v wrk >/dev/null || ($(call apt_install,wrk))

# The sandbox of uploaded bots: bubblewrap, util-linux (setpriv, prlimit), Debian's own
# python3 (outside any home folder, so the bots' uids can run it) and its binding of
# libseccomp (the seccomp filter); gcc and libc6-dev for the tests of native code in it.
sandbox-deps: runtime-deps
	@command -v bwrap >/dev/null && command -v setpriv >/dev/null && test -x /usr/bin/python3 \
		&& /usr/bin/python3 -c 'import seccomp' 2>/dev/null && command -v gcc >/dev/null \
		&& test -e /usr/include/stdio.h \
		|| ($(call apt_install,bubblewrap util-linux python3 python3-seccomp gcc libc6-dev))

# The toolchains of the bot runtimes, all Debian packages, as the runtimes table's rows name
# them (arena/runtimes.py, the one statement): a row whose toolchain is missing is reported
# unavailable by the probe, and its uploads are refused.
RUNTIME_PACKAGES = $(shell $(PYTHON) -m arena.runtimes)
runtime-deps:
	@missing="$$(dpkg-query -W -f='$${Status}\n' $(RUNTIME_PACKAGES) 2>&1 | grep -v '^install ok installed$$')"; \
		test -z "$$missing" || ($(call apt_install,$(RUNTIME_PACKAGES)))

# The suite runs in TEST_WORKERS processes (pytest-xdist), each with a test database, a Redis
# database (CELERY_BROKER_URL's number plus the worker's: 12 gives 12, 13 and 14) and sandbox
# uids of its own (config/pytest_plugin.py). Three on a 2-CPU machine: part of the suite waits
# (on workers, sleeping bots, a browser) and a third process fills that time; see README's
# "Tests" for the times. TEST_WORKERS=0 runs it in one process, as plain `pytest` does.
TEST_WORKERS ?= 3
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadgroup

# What the suite needs installed: the venv, and the Debian packages of the sandbox, the
# browser tests and the bots' runtimes.
test-deps: $(STAMP) browser-deps sandbox-deps runtime-deps

test: test-deps
	$(PY) -m pytest $(PYTEST_PARALLEL)

# The inner loop: the suite without the browser tests, the tests of the real sandbox (marked
# sandbox) and those of the real services (marked services, skipped here anyway), nor the
# longest property tests (their 600 random matches a game); make test runs them all.
FAST_LEAVES_OUT := not browser and not sandbox and not services
test-fast: $(STAMP)
	$(PY) -m pytest $(PYTEST_PARALLEL) -m '$(FAST_LEAVES_OUT)' \
		--deselect tests/games/rules/test_conformance.py::test_random_matches_keep_every_invariant

# The event log's PostgreSQL rows run on this server, in a scratch database (docs/bench.md).
BENCH_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/postgres

bench: $(STAMP) load-deps sandbox-deps
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) BENCH_POSTGRES_URL=$(BENCH_POSTGRES_URL) $(PY) manage.py bench

# The bench's measurements that are tests (tests/ops/test_page_cost.py): the tournament page's
# cost with the metrics on against off, and against the code before sign-in, run for run.
# About two minutes with both CPUs busy, so never part of make test.
bench-tests: $(STAMP) load-deps
	BAIZE_BENCH_TESTS=1 $(PY) -m pytest -n 0 tests/ops/test_page_cost.py -s

# Matches per second against worker processes, on one PostgreSQL and one Redis (docs/capacity.md):
# a database of its own on CAPACITY_POSTGRES_URL's server and Redis database 15 (CAPACITY_REDIS_URL),
# both emptied afterwards; the table and the curve go to artifacts/capacity/. The curve is drawn by
# matplotlib, an extra of its own (pyproject.toml): nothing else needs it.
CAPACITY_POSTGRES_URL ?= $(BENCH_POSTGRES_URL)
CAPACITY_STAMP := $(VENV)/.capacity-installed

$(CAPACITY_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev,capacity]'
	touch $(CAPACITY_STAMP)

capacity: $(CAPACITY_STAMP) sandbox-deps
	$(LOCAL) CAPACITY_POSTGRES_URL=$(CAPACITY_POSTGRES_URL) $(PY) manage.py capacity

strength: $(STAMP)
	$(LOCAL) $(PY) manage.py bot_strength

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy games/rules

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

serve: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(PY) manage.py builtin_bots -v 0
	$(LOCAL) $(PY) manage.py runserver 127.0.0.1:$(PORT)

# Celery beside `make serve`, with its settings: a worker with the beat inside (one host), or
# workers and one beat apart. CELERY_BROKER_URL must point at the broker (README).
worker: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(VENV)/bin/celery -A config worker -B -l info

worker-only: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(VENV)/bin/celery -A config worker -l info

beat: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(VENV)/bin/celery -A config beat -l info

# The deployment built and run for real: image, two workers sharing only PostgreSQL and Redis,
# an upload checked and played, a tournament surviving a killed worker (deploy/check.py).
# Needs a running Docker daemon (DOCKER_HOST is honoured) and docker-compose or docker compose.
deploy-check:
	$(PYTHON) deploy/check.py

clean:
	rm -rf $(VENV) var/*.sqlite3
