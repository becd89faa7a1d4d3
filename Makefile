# Every target builds the virtual environment first, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
GAME ?= snag

.PHONY: demo test bench lint format serve worker clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) manage.py migrate --no-input -v 0
	$(PY) manage.py demo --game $(GAME)

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) manage.py migrate --no-input -v 0
	$(PY) manage.py bench

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

serve: $(STAMP)
	$(PY) manage.py migrate --no-input -v 0
	$(PY) manage.py runserver

clean:
	rm -rf $(VENV) var/*.sqlite3
