# gauntlet's developer entry points. `make verify` is what CI runs (through .ci/run).
# Every target bootstraps .venv from the hash-locked requirements.lock, installing uv
# through pip when it is missing, so a fresh clone needs nothing but Python 3.11+.

PYTHON ?= python3
UV_VERSION ?= 0.13.9
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
UV := $(shell command -v uv 2>/dev/null)
ifeq ($(UV),)
UV := $(PYTHON) -m uv
UV_BOOTSTRAP := $(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet "uv==$(UV_VERSION)"
else
UV_BOOTSTRAP := true
endif

# uv must use the machine's Python, never download one.
export UV_PYTHON_DOWNLOADS := never

.DEFAULT_GOAL := help
.PHONY: help dev lock verify format-check lint imports types test actions format demo inventory schemas bench clean demo-history dist counts

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

$(STAMP): requirements.lock pyproject.toml
	@$(UV_BOOTSTRAP)
	$(UV) venv --quiet --allow-existing --python $(PYTHON) $(VENV)
	$(UV) pip sync --quiet --compile-bytecode --python $(BIN)/python --require-hashes requirements.lock
	$(UV) pip install --quiet --python $(BIN)/python --no-deps --no-build-isolation -e .
	@touch $@

dev: $(STAMP) ## create .venv with the locked tools and gauntlet installed editable

lock: ## re-resolve dependencies; export requirements.lock (everything) and action.lock (to run)
	@$(UV_BOOTSTRAP)
	$(UV) lock --quiet
	$(UV) export --quiet --format requirements-txt --all-groups --all-extras --no-emit-project \
		--no-header --output-file requirements.lock
	$(UV) export --quiet --format requirements-txt --no-default-groups --group build \
		--no-emit-project --no-header --output-file action.lock
	@rm -f uv.lock

verify: format-check lint imports types test actions ## everything CI checks: format, lint, import contracts, types, tests, zizmor

format-check: $(STAMP)
	$(BIN)/ruff format --check src tests benchmarks

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

imports: $(STAMP) ## check the one-way package order (import-linter contracts in pyproject.toml)
	$(BIN)/lint-imports --no-cache --no-logo

types: $(STAMP)
	$(BIN)/mypy

# The sources are compiled once before the tests: CI (and anyone with PYTHONDONTWRITEBYTECODE)
# writes no bytecode, so every `gauntlet` process a test starts would compile all of gauntlet
# again (0.4 s of a 0.6 s `gauntlet validate` on these machines). The dependencies are
# compiled when installed (--compile-bytecode above), as pip does for an installed gauntlet.
test: $(STAMP) ## the tests, with the branch-coverage floor
	$(BIN)/python -m compileall -q -j 0 src
	$(BIN)/pytest -n auto --cov --cov-report=term

actions: $(STAMP) ## audit action.yml, the workflows and dependabot.yml with zizmor (offline)
	$(BIN)/zizmor --offline action.yml .github/workflows .github/dependabot.yml

format: $(STAMP) ## rewrite files in the house format
	$(BIN)/ruff format src tests benchmarks
	$(BIN)/ruff check --fix src tests benchmarks

# The repository's https address, for the wheel's project URLs and its README's links (see
# hatch_build.py): REPOSITORY_URL=https://HOST/OWNER/NAME, else the git remote `origin`.
REPOSITORY_URL ?= $(shell git config --get remote.origin.url 2>/dev/null | sed -E 's|^git@([^:]+):|https://\1/|; s|\.git$$||')

dist: $(STAMP) ## build the sdist and, from it, the wheel into dist/; check their metadata and files; install the wheel by name in a fresh venv and run it
	@case "$(REPOSITORY_URL)" in https://*) ;; *) echo "make dist: the wheel's links need the repository's https address: REPOSITORY_URL=https://HOST/OWNER/NAME (the git remote origin gives none)"; exit 2 ;; esac
	GAUNTLET_REPOSITORY_URL="$(REPOSITORY_URL)" $(BIN)/python scripts/dist.py

schemas: $(STAMP) ## regenerate schemas/ from the models
	$(BIN)/gauntlet schema cases > schemas/cases.schema.json
	$(BIN)/gauntlet schema evidence > schemas/evidence.schema.json
	$(BIN)/gauntlet schema target > schemas/target.schema.json
	$(BIN)/gauntlet schema waivers > schemas/waivers.schema.json
	$(BIN)/gauntlet schema feature > schemas/feature.schema.json
	$(BIN)/gauntlet schema similarity-labels > schemas/similarity-labels.schema.json
	$(BIN)/gauntlet schema similarity-calibration > schemas/similarity-calibration.schema.json
	$(BIN)/gauntlet schema personas > schemas/personas.schema.json

demo: $(STAMP) ## run the built-in suites against the toy, natively, through a target file, with a calibrated model judge, golden answers compared by meaning, and with parity and waivers; write the evidence
	$(BIN)/gauntlet run --out results.json
	$(BIN)/gauntlet report results.json --out evidence.md
	$(BIN)/gauntlet report results.json --format json --out evidence.json
	$(BIN)/gauntlet report results.json --baseline results.json --out drift.md
	$(BIN)/python scripts/demo_target.py
	$(BIN)/python scripts/demo_judge.py
	$(BIN)/gauntlet calibrate --embedder builtin --out similarity.json
	$(BIN)/gauntlet run --toy --toy-defect answer_drift --cases examples/semantic \
		--embedder builtin --embedder-calibration similarity.json --out results-semantic.json
	$(BIN)/python scripts/demo_policy.py

demo-history: $(STAMP) ## build build/history/history.sqlite from 13 runs of the toy going from healthy to flaky to broken, and show it
	$(BIN)/python scripts/demo_history.py

inventory: $(STAMP) ## rewrite the gate inventory in docs/gates.md from the loaded suites
	$(BIN)/gauntlet inventory --update docs/gates.md

# Issue 30's counts (functions over 6 parameters or 60 lines, modules importing over 8 gauntlet
# modules), read with the standard library's ast; BASELINE=<git rev> counts that rev beside.
counts: ## count long functions, many-parameter functions, many-import modules (BASELINE=<git rev> too)
	$(PYTHON) scripts/code_counts.py $(if $(BASELINE),--rev "$(BASELINE)")

# BASELINE=<git rev>: the pipeline's cost (issue 19) is measured for this tree and for that
# rev, checked out as a git worktree in build/bench-baseline (made once, moved to the rev after).
BASELINE ?=
BENCH_BASELINE := build/bench-baseline
BENCH_BASELINE_ARGS = $(if $(BASELINE),--baseline-src $(BENCH_BASELINE)/src)
.PHONY: bench-goals bench-baseline bench-semantic

bench: $(STAMP) $(if $(BASELINE),bench-baseline) ## benchmark the HTTP engine on a loopback stub; writes benchmarks/RESULTS.md (with BASELINE=<git rev>, the pipeline's cost against it too)
	GAUNTLET_BENCH_TARGET=$@ $(BIN)/python benchmarks/bench.py $(BENCH_BASELINE_ARGS)

bench-goals: $(STAMP) bench-baseline ## only the pipeline's cost against BASELINE=<git rev>, a few minutes; replaces its section of benchmarks/RESULTS.md
	GAUNTLET_BENCH_TARGET=$@ $(BIN)/python benchmarks/bench.py --goals-only $(BENCH_BASELINE_ARGS)

bench-semantic: $(STAMP) ## only the cost of `match: semantic` against `match: exact` (2,000 golden cases, the builtin embedder), a minute or two; replaces its section of benchmarks/RESULTS.md
	GAUNTLET_BENCH_TARGET=$@ $(BIN)/python benchmarks/bench.py --semantic-only

bench-baseline:
	@test -n "$(BASELINE)" || { echo "give the baseline as BASELINE=<git rev>, e.g. make bench-goals BASELINE=main"; exit 2; }
	@rev=$$(git rev-parse --verify --quiet "$(BASELINE)^{commit}") \
		|| { echo "BASELINE=$(BASELINE) is not a commit of this repository"; exit 2; }; \
	git worktree prune; \
	if [ -e $(BENCH_BASELINE)/.git ]; then \
		git -C $(BENCH_BASELINE) checkout --quiet --detach $$rev; \
	else \
		git worktree add --quiet --detach $(BENCH_BASELINE) $$rev; \
	fi; \
	echo "baseline: $(BENCH_BASELINE) at $$(git -C $(BENCH_BASELINE) rev-parse --short HEAD) ($(BASELINE))"

# Not part of `make verify` (it builds llama.cpp: minutes, and a 93 MB download). Set-up goes
# into .venv-real-llm and is done once; see scripts/real_llm.py.
.PHONY: real-llm
real-llm: $(STAMP) ## build llama.cpp's server from source, serve SmolLM2-135M, run tests/real_llm
	$(BIN)/python scripts/real_llm.py

# The documentation site. `make site` needs only Python; `make pages` also checks it in a real
# browser, installing what it needs: the locked node tools (npm ci) and, when absent, Debian's
# chromium (never a browser download).
SITE := site
CHROMIUM := /usr/bin/chromium
.PHONY: site pages

site: $(STAMP) ## build the documentation site into site/ (HTML and one stylesheet)
	$(BIN)/gauntlet site --out $(SITE)

# `make pages` also draws the run-history dashboard from HISTORY when that file exists. The
# default is where `make demo-history` writes its seeded history, which pages builds first
# (without demo-history's own dashboard: the site built next is that dashboard).
DEMO_HISTORY := build/history/history.sqlite
HISTORY ?= $(DEMO_HISTORY)

pages: $(STAMP) ## build the site (with the dashboard of HISTORY when it exists) and check it: html-validate, axe-core (WCAG A/AA) in headless Chromium, screenshots
	@if [ "$(HISTORY)" = "$(DEMO_HISTORY)" ]; then $(BIN)/python scripts/demo_history.py --no-dashboard; fi
	$(BIN)/gauntlet site --out $(SITE) $$(test -f "$(HISTORY)" && printf -- '--history %s' "$(HISTORY)")
	@command -v node >/dev/null 2>&1 || { echo "make pages needs Node.js 20 and npm"; exit 2; }
	@if [ ! -x $(CHROMIUM) ]; then \
		echo "installing Debian's chromium"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	cd site-tools && npm ci --no-audit --no-fund --loglevel=warn
	CHROMIUM_PATH=$(CHROMIUM) node site-tools/check-pages.mjs $(SITE)

clean: ## remove the environment and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis .coverage htmlcov dist build
