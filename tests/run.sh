#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: installs what the tests need, then pytest.
# The tests start their own S3-compatible server and app servers; PostgreSQL must be at
# 127.0.0.1:5432 (trust auth, database `test`) and Redis at 127.0.0.1:6379. Extra
# arguments go to pytest:
#   ./tests/run.sh                      everything, SQLite (and PostgreSQL where it is the subject)
#   ./tests/run.sh -m "not slow"        the quick subset for the edit loop
#   ./tests/run.sh --db=postgresql      everything on PostgreSQL too (the parity pass)
#   ./tests/run.sh tests/turn -x        one folder, stop at the first failure
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'tests/run.sh: %s\n' "$*" >&2; }

if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  python3 -m venv .venv
fi
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
  say "installing the Python packages into .venv (about 3 minutes on a fresh machine)"
  started=$SECONDS
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  touch .venv/.installed
  say "installed in $((SECONDS - started)) s"
fi

# Headless Chromium for the browser tests comes from Debian (Playwright's own download
# cannot be fetched here).
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing Debian's chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    say "/usr/bin/chromium is missing; install Debian's chromium package"
  fi
fi

# promtool checks the alert rules in docs/alerts.yml (tests/test_alert_rules.py fails without it).
if ! command -v promtool >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    say "installing Debian's prometheus for promtool"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null
  else
    say "promtool is missing; install Debian's prometheus package"
  fi
fi

# PostgreSQL is expected to be running; start the local cluster if it is installed but down.
if command -v pg_isready >/dev/null && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
fi

# Redis (throttling shared across processes) likewise: start it if installed but down.
if command -v redis-cli >/dev/null && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if command -v redis-server >/dev/null; then
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
  fi
fi

.venv/bin/ruff check .
.venv/bin/lint-imports --no-cache
status=0
# Two workers, one per core, each test file on one worker (its module fixtures made once);
# the 15 slowest tests are listed so drift is seen.
.venv/bin/python -m pytest -n 2 --dist loadfile --durations=15 "$@" || status=$?
if [ "$status" = 5 ]; then
  say "pytest collected no tests; that is a failure"
  exit 1
fi
exit "$status"
