# Two entry points for a fresh machine (see README): `make serve` and `make test`.
# Python comes from .python-version (pyenv or uv honour it); Django 6 needs 3.12+.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTHON_FOR_VENV := $(shell pyenv which python 2>/dev/null || command -v python$$(cat .python-version) || command -v python3)

.PHONY: serve test setup setup-test browser oracles services lint bench

$(VENV)/.runtime: requirements.txt
	@$(PYTHON_FOR_VENV) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else "Python 3.12 or newer is needed (see .python-version)")'
	test -x $(PY) || $(PYTHON_FOR_VENV) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.test: requirements-test.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
	touch $@

setup: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput

setup-test: $(VENV)/.test browser oracles

# Debian's Chromium, never a downloaded browser build.
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The real tools kadmin's are compared with (tests/unit/lab/test_*_oracle.py): Debian's gawk,
# and util-linux's column (bsdextrautils, on most machines already); coreutils, grep, sed and
# bash are on every Debian machine.
oracles:
	@command -v gawk >/dev/null && command -v column >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gawk bsdextrautils >/dev/null; }

# PostgreSQL and Redis from Debian, for the multi-process tests and the PostgreSQL pass.
services:
	scripts/services install

# The site on granian with one worker process: scripts/serve-production's server, which reads
# the HTTP and websocket protocols in its own threads, not in the interpreter that runs the
# learners' commands (docs/performance.md, "Choosing the server"). One process keeps the
# in-memory channel layer whole; `setup` has migrated, and without the manifest nothing is
# collected (SKIP_SETUP=1).
serve: setup
	DEBUG=$${DEBUG:-1} WEB_WORKERS=1 STATIC_MANIFEST=0 SKIP_SETUP=1 HOST=$(HOST) PORT=$(PORT) \
		GRANIAN_LOG_LEVEL=$${GRANIAN_LOG_LEVEL:-info} PYTHON=$(PY) scripts/serve-production

lint: $(VENV)/.test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# Both passes run on two workers (pytest-xdist: the CI machine's two cores); each worker has
# its own test database. First pass: everything on SQLite (tests/multiproc start their own
# PostgreSQL and Redis), the tests that time a learner's wait (marker solo) then alone.
# Second pass: the tests that use the database (web, reliability) again on PostgreSQL and Redis,
# which are stopped even on failure. The others (engine, lab, cluster) never touch it, nor do
# those that start a server on its own SQLite file (marker own_server).
test: setup-test lint services
	$(PY) manage.py check
	$(VENV)/bin/pytest -n 2 --cov --cov-report= -m "not solo"
	$(VENV)/bin/pytest --cov --cov-append --cov-report=term -m solo -p no:cacheprovider
	scripts/services run $(VENV)/bin/pytest -n 2 -q -m "not browser and not multiproc and not own_server" -p no:cacheprovider tests/web tests/reliability

bench: $(VENV)/.test
	$(PY) -m tests.benchmarks.bench_guide
	$(PY) -m tests.benchmarks.bench_engine
	$(PY) -m tests.benchmarks.bench_simulator
	$(PY) -m tests.benchmarks.bench_lab
	$(PY) -m tests.benchmarks.bench_new_lab
	$(PY) -m tests.benchmarks.bench_heavy
	$(PY) -m tests.benchmarks.bench_streams
	$(PY) -m tests.benchmarks.bench_snapshot_row
	$(PY) -m tests.benchmarks.bench_server
	scripts/services run $(PY) -m tests.benchmarks.bench_scale
