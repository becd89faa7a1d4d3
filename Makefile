# Every target builds the virtual environment first, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
GAME ?= snag
# The demo, bench and local server run on the embedded default, where debugging is fine.
LOCAL := DEBUG=$${DEBUG:-1}

.PHONY: demo test bench strength lint format serve clean browser-deps load-deps sandbox-deps \
	deploy-check

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(PY) manage.py demo --game $(GAME)

# Debian's Chromium for the browser tests and wrk for the load rows of make bench; idempotent.
APT_INSTALL := DEBIAN_FRONTEND=noninteractive apt-get install -y -q
browser-deps:
	@command -v chromium >/dev/null || (apt-get update -q && $(APT_INSTALL) chromium)

load-deps:
	@command -v wrk >/dev/null || (apt-get update -q && $(APT_INSTALL) wrk)

# The sandbox of uploaded bots: bubblewrap, util-linux (setpriv, prlimit) and Debian's own
# python3 (outside any home folder, so the bots' uids can run it); idempotent.
sandbox-deps:
	@command -v bwrap >/dev/null && command -v setpriv >/dev/null && test -x /usr/bin/python3 \
		|| (apt-get update -q && $(APT_INSTALL) bubblewrap util-linux python3)

test: $(STAMP) browser-deps sandbox-deps
	$(PY) -m pytest

bench: $(STAMP) load-deps sandbox-deps
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(PY) manage.py bench

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
	$(LOCAL) $(PY) manage.py runserver

# The deployment built and run for real: image, two workers sharing only PostgreSQL and Redis,
# an upload checked and played, a tournament surviving a killed worker (deploy/check.py).
# Needs a running Docker daemon (DOCKER_HOST is honoured) and docker-compose or docker compose.
deploy-check:
	$(PYTHON) deploy/check.py

clean:
	rm -rf $(VENV) var/*.sqlite3
