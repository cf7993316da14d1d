# Two entry points for a fresh machine: `make demo` and `make test` (see README).
# Everything is installed from lock files: tools/uv-requirements.txt (hash-pinned uv),
# uv.lock (Python, with hashes) and qualify/package-lock.json (pi-ai, with integrity hashes).

PYTHON ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
RUN := $(UV) run --frozen --no-sync

.PHONY: setup bytecode demo test lint typecheck unit clean bench bench-small bench-history bench-startup bench-parts bench-native bench-files pi-sessions fuzz fuzz-smoke

$(UV): tools/uv-requirements.txt
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check --require-hashes -r tools/uv-requirements.txt
	touch $(UV)

# Byte code is written at install: PYTHONDONTWRITEBYTECODE=1 (set in many CI and sandbox
# environments) otherwise makes every process, and every pool worker, compile every module it
# imports again (about a CPU-second each; docs/performance.md). The dependencies are compiled by
# uv; the checkout's own sources, installed editable, by `compileall` on every `make setup`
# (only what changed since is compiled again).
$(VENV)/.synced: $(UV) uv.lock pyproject.toml
	$(UV) sync --frozen --quiet --compile-bytecode
	touch $@

# The qualification harness: pi-ai exactly as pinned in qualify/package-lock.json (integrity
# hashes checked by npm ci). npm reaches the registry only here; install scripts never run.
QUALIFY_STAMP := qualify/node_modules/.installed
$(QUALIFY_STAMP): qualify/package.json qualify/package-lock.json
	cd qualify && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

bytecode: $(VENV)/.synced
	@$(RUN) python -m compileall -q src

setup: $(VENV)/.synced bytecode $(QUALIFY_STAMP)

# The demo's two HTML pages go to a new directory under /tmp (DEMO_HTML names another, existing
# and empty of those names), printed at the end.
DEMO_HTML ?=
demo: setup
	@pages="$(DEMO_HTML)"; pages="$${pages:-$$(mktemp -d /tmp/clearing-demo-pages-XXXXXX)}"; \
	$(RUN) clearing-analysis demo --html "$$pages" && \
	echo "The demo's pages: $$pages/demo-1-realistic-mix.html $$pages/demo-2-clearing-at-work.html"

lint: setup
	$(RUN) ruff check src tests bench fuzz
	$(RUN) ruff format --check src tests bench fuzz

typecheck: setup
	$(RUN) mypy

# The suite on every core, at most eight workers (pytest-xdist): each test is independent of
# the others' order and process; `PYTEST_WORKERS=0` runs it in one process.
PYTEST_WORKERS ?= auto
unit: setup
	$(RUN) pytest -q -n $(PYTEST_WORKERS) --maxprocesses 8

test: lint typecheck unit

# Throughput and memory of `analyze` against a bare decode of the same bytes, measured in the
# same run (bench/analyze/bench_analyze.py, docs/performance.md). `bench` generates ~150 MB,
# ~1 GB and ~4 GB corpora (about 11 GB of disk at the peak, 15-20 minutes on 2 cores);
# `bench-small` only ~150 MB (under 2 minutes). BENCH_ARGS adds options, e.g. --work DIR --keep.
bench: setup
	$(RUN) python bench/analyze/bench_analyze.py --sizes 150 1000 4000 $(BENCH_ARGS)

bench-small: setup
	$(RUN) python bench/analyze/bench_analyze.py --sizes 150 --repeats 3 $(BENCH_ARGS)

# Import CPU-seconds per command and of a pool worker (docs/performance.md, "Start-up").
bench-startup: setup
	$(RUN) python bench/startup/bench_imports.py $(BENCH_ARGS)

# What a run keeps for each journal file (bench/inputs/bench_per_file.py, docs/performance.md,
# "Memory against the corpus size"): BENCH_ARGS names a corpus directory as synth writes it.
bench-files: setup
	$(RUN) python bench/inputs/bench_per_file.py $(BENCH_ARGS)

# Where `analyze`'s CPU goes, part by part (decode, replay, finishing results, the sidecar, the
# simulation, the what-ifs, imports, ...): a sampling profiler of the standard library over one
# worker on a 150 MB corpus (bench/analyze/bench_parts.py, docs/performance.md; 1-2 minutes).
bench-parts: setup
	$(RUN) python bench/analyze/bench_parts.py $(BENCH_ARGS)

# A native replay core's prototype (bench/native_core, docs/performance.md, "A native replay
# core"): checked against the analyzer on a generated ~150 MB corpus, then timed against the
# bare decode. Needs g++ and libsimdjson-dev (Debian); the package never does (about 1 minute).
bench-native: setup
	$(RUN) python bench/native_core/bench_native.py $(BENCH_ARGS)

# Time against the length of one history (bench/history/bench_history.py, docs/performance.md):
# a linear pi session and a journal whose every turn ends in a checkpoint keeping everything,
# at 10k, 20k, 40k and 80k entries, and the fitted exponent (about 5 minutes on 2 cores).
bench-history: setup
	$(RUN) python bench/history/bench_history.py $(BENCH_ARGS)

# Fuzzing (docs/security.md): every atheris target for FUZZ_SECONDS each (coverage-guided,
# structure-aware mutation; new inputs and any crash under .fuzz/TARGET/), then the
# structure-aware property tests under hypothesis's `fuzz` profile (many more examples than in
# `make test`, with statistics) and coverage.py, whose branch coverage of each parser module
# ends the output; then the full-size input bounds (tests marked `scale`: 100 MiB of 3-byte
# lines, a tree 1,500 directories deep, 100,000 empty files; docs/security.md), about 2 minutes
# and 100 MiB of disk. `fuzz-smoke` is the short run CI does after the tests.
FUZZ_SECONDS ?= 300
FUZZ_TARGETS := journal pisession routes agent_config app_allowlist qualification report show_html \
	envelope
# The parsers the targets and property tests exercise, for the coverage report of `make fuzz`.
PARSER_MODULES := */journal/decode.py,*/strictjson.py,*/pisession/read.py,*/pisession/mapping.py,$\
*/inputs/configs.py,*/qualify/record.py,*/report/encode.py,*/report/validate.py,$\
*/report/text/details.py,*/report/text/tables.py,*/report/text/what_ifs.py,*/report/html/*.py,$\
*/attest/dsse.py,*/attest/statement.py,*/schemacheck.py

fuzz: setup
	@status=0; for target in $(FUZZ_TARGETS); do \
		$(RUN) python -m fuzz.run $$target -max_total_time=$(FUZZ_SECONDS) || status=1; \
	done; \
	$(RUN) coverage run --branch --data-file=.fuzz/coverage --source=clearing_analysis \
		-m pytest -q -m structure --hypothesis-profile=fuzz --hypothesis-show-statistics \
		tests || status=1; \
	$(RUN) coverage report --data-file=.fuzz/coverage --include='$(PARSER_MODULES)'; \
	$(RUN) pytest -q -m scale --scale tests || status=1; \
	exit $$status

fuzz-smoke: setup
	@status=0; for target in $(FUZZ_TARGETS); do \
		$(RUN) python -m fuzz.run $$target -max_total_time=$(or $(SMOKE_SECONDS),60) || status=1; \
	done; exit $$status

clean:
	rm -rf $(TOOLS) $(VENV) .pytest_cache .mypy_cache .ruff_cache qualify/node_modules \
		tools/pi-sessions/node_modules .fuzz

# Real pi session files written by pi's own code (docs/pi-session-writer.md): the pi coding
# agent exactly as pinned in tools/pi-sessions/package-lock.json (npm ci, integrity hashes, no
# install scripts), driven offline against a scripted model on 127.0.0.1; then `explore` reads
# what it wrote. Outside `make test`: it installs a second Node tree and runs a local server.
# The files committed in tests/data/pi-sessions/writer/ came from this target.
PI_WRITER_STAMP := tools/pi-sessions/node_modules/.installed
PI_SESSIONS_OUT ?=
$(PI_WRITER_STAMP): tools/pi-sessions/package.json tools/pi-sessions/package-lock.json
	cd tools/pi-sessions && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

# One output name per run (a new directory under /tmp unless PI_SESSIONS_OUT names one).
pi-sessions: setup $(PI_WRITER_STAMP)
	@out="$(PI_SESSIONS_OUT)"; out="$${out:-$$(mktemp -d -u /tmp/pi-sessions-XXXXXX)}"; \
	node tools/pi-sessions/write-sessions.mjs "$$out" && \
	$(RUN) clearing-analysis explore --sessions "$$out" \
		--routes tools/pi-sessions/routes.json --json > "$$out.explore.json" && \
	echo "pi sessions in $$out, explore report in $$out.explore.json"

# The OCI images (docs/container.md): needs podman, runc and mmdebstrap, which `make demo` and
# `make test` never do. `image` builds the local base and both images (the analyzer and the
# qualifier, two targets of the Containerfile), then names the
# containers.conf its scripts used (a podman run needs none: the documented commands pass
# --ulimit nofile/nproc, within this kind of host's hard limits);
# `image-smoke` runs the sealed smoke test against those images (tools/container/smoke.sh),
# then the CI templates' steps on them (tools/container/ci_templates.py);
# `image-check` rebuilds both images twice from empty storage, compares each one's image IDs
# (R-CT-1) and runs the smoke test on the result.
.PHONY: image image-smoke image-check

image:
	tools/container/build-base.sh
	tools/container/build.sh
	@bash -c '. tools/container/podman-env.sh && echo "built with CONTAINERS_CONF=$$CONTAINERS_CONF; runs need only the README'"'"'s --ulimit flags"'

image-smoke: setup
	tools/container/smoke.sh
	$(RUN) python tools/container/ci_templates.py

image-check: setup
	tools/container/check.sh
