# flipgame: `make verify` (main job) and `make test` each create .venv and
# install the package with its dependencies first, when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: verify test test-slow check-wheel bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

verify: $(STAMP)  ## every backend on all 65536 4x4 boards; non-zero exit on any disagreement
	$(BIN)/flipgame verify --size 4x4 --report flipgame-verify.json

test: $(STAMP)  ## the test suite and the doctests (tests marked slow excluded)
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: $(STAMP)  ## the tests that need more than a few seconds each (39x39, 100x100, SCIP at 14x14)
	$(BIN)/python -m pytest -q --runslow -m slow

# The wheel as a user gets it: built from this checkout, installed without -e into a fresh venv,
# then the command, the POJ sample, the Python API, a small verify and the test suite run against
# the installed package from outside the source tree; `import solvers` / `import verify` must fail.
WHEEL_VENV := build/wheel-venv
SAMPLE_IN  := printf 'bwwb\nbbwb\nbwwb\nbwww\n'

check-wheel: $(STAMP)  ## build the wheel, install it (not -e) in a fresh venv, run the suite against it
	rm -rf build/dist $(WHEEL_VENV)
	$(BIN)/python -m build --wheel --outdir build/dist . >/dev/null
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "$$(ls build/dist/flipgame-*.whl)[dev]"
	cd /tmp && $(CURDIR)/$(WHEEL_VENV)/bin/flipgame --version
	test "$$($(SAMPLE_IN) | $(WHEEL_VENV)/bin/flipgame solve)" = 4
	cd /tmp && test "$$($(CURDIR)/$(WHEEL_VENV)/bin/python -c "import flipgame; print(flipgame.solve(['bwwb','bbwb','bwwb','bwww']).moves)")" = 4
	cd /tmp && ! $(CURDIR)/$(WHEEL_VENV)/bin/python -c "import solvers" 2>/dev/null
	cd /tmp && ! $(CURDIR)/$(WHEEL_VENV)/bin/python -c "import verify" 2>/dev/null
	cd /tmp && $(CURDIR)/$(WHEEL_VENV)/bin/flipgame verify --size 3x3 --report $(CURDIR)/build/wheel-verify.json
	$(WHEEL_VENV)/bin/python -m pytest -q -p no:cacheprovider --rootdir tests tests

# The POJ 1753 reference C++ (beside the repository in ../shared/seeds), compiled for `make bench`
# when it and g++ are there: bench times it on the same stream of all 65536 boards as `flipgame solve`.
SEED      ?= ../shared/seeds/000_b1df5a2eb2915c27.txt
REFERENCE := $(VENV)/poj1753-reference

bench: $(STAMP)  ## every backend on all 4x4 boards, the solve stream beside the reference C++, every strategy; flipgame-bench.json
	@if [ -f "$(SEED)" ] && command -v g++ >/dev/null 2>&1; then \
	  sed '1,/AC代码：/d' "$(SEED)" > $(REFERENCE).cpp && g++ -O2 -o $(REFERENCE) $(REFERENCE).cpp; \
	else echo "bench: no reference C++ (needs $(SEED) and g++); timing flipgame alone"; rm -f $(REFERENCE); fi
	$(BIN)/flipgame bench --size 4x4 --json flipgame-bench.json --strategies $$([ -x $(REFERENCE) ] && echo --reference $(REFERENCE))

lint: $(STAMP)
	$(BIN)/ruff check solvers verify tests

clean:
	rm -rf $(VENV) flipgame-verify.json flipgame-bench.json .pytest_cache
