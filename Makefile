# flipgame: `make verify` (main job) and `make test` each create .venv and
# install the package with its dependencies first, when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: verify test test-slow bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

verify: $(STAMP)  ## every backend on all 65536 4x4 boards; non-zero exit on any disagreement
	$(BIN)/flipgame verify --size 4x4 --report flipgame-verify.json

test: $(STAMP)  ## the test suite and the doctests (tests marked slow excluded)
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: $(STAMP)  ## the tests that need more than a few seconds each (39x39, 100x100, SCIP at 14x14)
	$(BIN)/python -m pytest -q -m slow

bench: $(STAMP)  ## every backend on all 4x4 boards, every strategy on the scaling inputs; flipgame-bench.json
	$(BIN)/flipgame bench --size 4x4 --json flipgame-bench.json --strategies

lint: $(STAMP)
	$(BIN)/ruff check solvers verify tests

clean:
	rm -rf $(VENV) flipgame-verify.json flipgame-bench.json .pytest_cache
