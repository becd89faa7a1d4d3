# Every target builds the virtual environment first, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
GAME ?= snag
# The demo, bench and local server run on the embedded default, where debugging is fine.
LOCAL := DEBUG=$${DEBUG:-1}

.PHONY: demo test bench strength lint format serve clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(PY) manage.py demo --game $(GAME)

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(PY) manage.py bench

strength: $(STAMP)
	$(LOCAL) $(PY) manage.py bot_strength

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

serve: $(STAMP)
	$(LOCAL) $(PY) manage.py migrate --no-input -v 0
	$(LOCAL) $(PY) manage.py runserver

clean:
	rm -rf $(VENV) var/*.sqlite3
