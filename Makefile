# flipgame: `make verify` (main job) and `make test` each create .venv and
# install the package with its dependencies first, when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: verify test test-slow check-wheel bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[all,dev]'
	touch $(STAMP)

verify: $(STAMP)  ## every backend on all 65536 4x4 boards; non-zero exit on any disagreement
	$(BIN)/flipgame verify --size 4x4 --report flipgame-verify.json

# The fast suite runs in parallel on up to four cores (pytest-xdist); no test in it asserts a wall-clock bound.
test: $(STAMP)  ## the test suite and the doctests (tests marked slow excluded)
	$(BIN)/python -m pytest -q -m "not slow" -n auto --maxprocesses=4

test-slow: $(STAMP)  ## the tests that need more than a few seconds each, and the wall-clock bounds (one at a time)
	$(BIN)/python -m pytest -q --runslow -m slow

# The wheel as a user gets it: built from this checkout, installed without -e into a fresh venv,
# then the command, the POJ sample, the Python API, a small verify and a representative part of the
# test suite (WHEEL_TESTS) run against the installed package from outside the source tree;
# `import solvers` / `import verify` must fail.
WHEEL_VENV := build/wheel-venv
WHEEL_TESTS := tests/test_backends.py tests/test_cli.py tests/test_general.py tests/test_general_cli.py \
               tests/test_streams.py tests/test_doctests.py tests/test_registry_gate.py tests/test_docs.py
SAMPLE_IN  := printf 'bwwb\nbbwb\nbwwb\nbwww\n'

check-wheel: $(STAMP)  ## build the wheel, install it (not -e) in a fresh venv, run the suite against it
	rm -rf build/dist $(WHEEL_VENV)
	$(BIN)/python -m build --wheel --outdir build/dist . >/dev/null
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "$$(ls build/dist/flipgame-*.whl)[all,dev]"
	cd /tmp && $(CURDIR)/$(WHEEL_VENV)/bin/flipgame --version
	test "$$($(SAMPLE_IN) | $(WHEEL_VENV)/bin/flipgame solve)" = 4
	cd /tmp && test "$$($(CURDIR)/$(WHEEL_VENV)/bin/python -c "import flipgame; print(flipgame.solve(['bwwb','bbwb','bwwb','bwww']).moves)")" = 4
	cd /tmp && ! $(CURDIR)/$(WHEEL_VENV)/bin/python -c "import solvers" 2>/dev/null
	cd /tmp && ! $(CURDIR)/$(WHEEL_VENV)/bin/python -c "import verify" 2>/dev/null
	cd /tmp && $(CURDIR)/$(WHEEL_VENV)/bin/flipgame verify --size 3x3 --report $(CURDIR)/build/wheel-verify.json
	$(WHEEL_VENV)/bin/python -m pytest -q -p no:cacheprovider -m "not slow" -n auto --maxprocesses=4 --rootdir tests $(WHEEL_TESTS)

# The POJ 1753 reference C++ (beside the repository in ../shared/seeds), compiled for `make bench`
# when it and g++ are there: bench times it on the same stream of all 65536 boards as `flipgame solve`.
SEED      ?= ../shared/seeds/000_b1df5a2eb2915c27.txt
REFERENCE := $(VENV)/poj1753-reference

bench: $(STAMP)  ## every backend and strategy side by side (flipgame-bench.json), then the measured run: every figure the docs quote
	@if [ -f "$(SEED)" ] && command -v g++ >/dev/null 2>&1; then \
	  sed '1,/AC代码：/d' "$(SEED)" > $(REFERENCE).cpp && g++ -O2 -o $(REFERENCE) $(REFERENCE).cpp; \
	else echo "bench: no reference C++ (needs $(SEED) and g++); timing flipgame alone"; rm -f $(REFERENCE); fi
	$(BIN)/flipgame bench --size 4x4 --json flipgame-bench.json --strategies $$([ -x $(REFERENCE) ] && echo --reference $(REFERENCE))
	$(BIN)/flipgame bench --measure --docs . $$([ -x $(REFERENCE) ] && echo --reference $(REFERENCE))

lint: $(STAMP)
	$(BIN)/ruff check solvers verify tests

clean:
	rm -rf $(VENV) flipgame-verify.json flipgame-bench.json .pytest_cache
