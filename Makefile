# Two commands for a fresh machine: `make lab` (open the course) and `make test` (run every test).
# `make lab` builds .venv from binder/requirements.txt — the same pinned environment Binder builds — and `make test`
# adds the pinned test tools of requirements-dev.txt to it. Both install lnlib itself (editable) last.
VENV := .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.installed-runtime
STAMP := $(VENV)/.installed
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg -p tests.nbval_alt

.PHONY: lab test test-unit test-notebooks test-notebooks-other-path test-english lint format notebooks nav clean pdf coverage

# Python 3.11.2 or newer (Debian 12's own python3; Binder's is 3.11): the first such python3.X / python3 on PATH; override with PYTHON=...
PYTHON_CANDIDATES := python3.11 python3.12 python3.13 python3.14 python3 python
PYTHON ?= $(shell for p in $(PYTHON_CANDIDATES); do \
	"$$p" -c 'import sys; sys.exit(sys.version_info < (3, 11, 2))' >/dev/null 2>&1 && { command -v "$$p"; break; }; \
	done)
define NEED_PYTHON
The course needs Python 3.11.2 or newer (CPython, 64-bit), with its venv module.
  Debian/Ubuntu:  sudo apt-get install python3 python3-venv      (Debian 12+ / Ubuntu 24.04+ ship 3.11.2 or newer)
                  older releases: install python3.11 and python3.11-venv (e.g. from the deadsnakes PPA)
  macOS:          brew install python@3.11    (or the installer from python.org)
  Windows:        winget install Python.Python.3.11, then follow README.md, "Windows" (no make needed)
Then run make again, or point make at it: make lab PYTHON=/path/to/python3.11
endef
export NEED_PYTHON

.PHONY: python-check
python-check:
	@if [ -z "$(PYTHON)" ] || ! "$(PYTHON)" -c 'import sys; sys.exit(sys.version_info < (3, 11, 2))' >/dev/null 2>&1; then \
		echo "make: no Python 3.11.2 or newer found (tried: $(or $(PYTHON),$(PYTHON_CANDIDATES)))." >&2; \
		echo "$$NEED_PYTHON" >&2; exit 1; \
	fi
	@if ! "$(PYTHON)" -c 'import ensurepip, venv' >/dev/null 2>&1; then \
		echo "make: $(PYTHON) has no working venv module (Debian/Ubuntu: sudo apt-get install python3-venv," >&2; \
		echo "or python3.X-venv for the python3.X you use)." >&2; exit 1; \
	fi

# labextension/ is the source of the course's JupyterLab extension; its build is committed under share/ (so no
# learner, teacher or CI run needs Node.js). `make labextension` rebuilds it (Node.js 20+, npm) after a change of
# the source and stamps it with the source's hash (tools/labextension.py; tests/test_labextension.py checks it).
LABEXT_BUILT := share/jupyter/labextensions/lnlib-alt-text
.PHONY: labextension
labextension: $(STAMP)
	rm -rf $(LABEXT_BUILT)
	cd labextension && npm ci --no-audit --no-fund && PATH="$(abspath $(BIN)):$$PATH" jupyter-builder build .
	$(BIN)/python -m tools.labextension --stamp

# The learner's environment (what `make lab` needs). lnlib is installed last and editable, so edits show at once.
$(RUNTIME_STAMP): binder/requirements.txt pyproject.toml | python-check
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r binder/requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip check
	# the course's JupyterLab extension (alt text on every figure): an editable install copies no data files, so
	# link the built one into the venv, where JupyterLab looks (a plain `pip install .` installs it by itself)
	$(BIN)/python -m tools.labextension --install
	# build matplotlib's font cache now, so no notebook prints "building the font cache" to stderr
	$(BIN)/python -c "import lnlib.plots as p; p.use_cjk_font()"
	touch $@

# The learner's environment plus the test and maintainer tools (make test, CI, site, pdf) and the teacher's extra
# (requirements-teacher.txt: nbgrader for `make assignments`; it includes requirements-dev.txt), so `make test` and
# CI run the grading tests. Never in binder/requirements.txt: a learner needs none of it.
$(STAMP): $(RUNTIME_STAMP) requirements-dev.txt requirements-teacher.txt
	$(BIN)/python -m pip install --quiet -r requirements-teacher.txt
	$(BIN)/python -m pip check
	touch $@

# Containers and cloud workspaces run as root: JupyterLab then needs --allow-root. On Linux without a display there is
# no browser to open, so JupyterLab only prints the URL with its token (open it in the browser of your own machine).
LAB_FLAGS := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root) \
	$(if $(filter Linux,$(shell uname -s 2>/dev/null)),$(if $(DISPLAY)$(WAYLAND_DISPLAY),,--no-browser))

# Only the install of `make lab` (CI runs it with Debian's own python3 in a second venv:
# make lab-install VENV=build/venv-debian PYTHON=/usr/bin/python3).
.PHONY: lab-install
lab-install: $(RUNTIME_STAMP)

# The edition `make lab` opens: EDITION=zh (default, notebooks/00-index.ipynb) or EDITION=en (notebooks/en/, the
# English edition). Not LANG: that is the shell's locale variable, set on most machines already.
EDITION ?= zh
ifneq ($(filter-out zh en,$(EDITION)),)
$(error EDITION=zh (the Chinese edition) or EDITION=en (the English edition), not '$(EDITION)')
endif
EDITION_INDEX := $(if $(filter en,$(EDITION)),notebooks/en/00-index.ipynb,notebooks/00-index.ipynb)

lab: $(RUNTIME_STAMP)
	@test -f $(EDITION_INDEX) || { echo "make lab: $(EDITION_INDEX) is not there yet" >&2; exit 2; }
	$(BIN)/jupyter lab $(strip $(LAB_FLAGS)) --LabApp.default_url=/lab/tree/$(EDITION_INDEX)

# `make test`: lint first (seconds), then the independent suites, three at a time (make -j3): the unit tests, strict
# nbval on the second code path (see test-notebooks-other-path), the real-browser tests and the English smoke run
# (test-english). Most of their time is kernels starting and notebooks running, in separate processes, so on 2 cores
# they overlap well. Each suite prints its report when it ends (--output-sync); `make test` fails if any fails.
test: lint
	@$(MAKE) --no-print-directory -j3 --output-sync=target test-unit test-notebooks-other-path test-browser test-english

# Code and notebooks (.ipynb, linted and formatted like .py files), one formatter (ruff format), the generated
# navigation cells, the English notebooks against their Chinese twins (tools/edition.py), every commit subject
# since tools/commit_subjects.py's base within 72 bytes, and mypy on lnlib
# (strict on the public API; no finding beyond tools/mypy_baseline.txt). `make format` applies the formatter and
# ruff's safe fixes.
LINT_PATHS := lnlib tests tools benchmarks notebooks assignments
lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/python -m tools.nav --check
	$(BIN)/python -m tools.edition --check
	$(BIN)/python -m tools.commit_subjects
	$(BIN)/python -m tools.typecheck

format: $(STAMP)
	$(BIN)/ruff format $(LINT_PATHS)
	$(BIN)/ruff check --fix $(LINT_PATHS)

# The unit suite runs no course notebook: whether a fresh run shows the stored outputs is strict nbval's check
# (below); tests/test_determinism.py shows that check can fail. The tests of trained numbers (marker `trained`)
# then run a second time on another OpenBLAS kernel than the first pass's (tools/blas.py), so a test that holds
# only on this CPU's kernel fails here first, not on a contributor's machine.
test-unit: $(STAMP)
	@mkdir -p build
	$(BIN)/python -m coverage run --data-file=build/.coverage-unit --source=lnlib -m pytest -q -p no:cacheprovider tests -m "not browser and not english"
	$(BIN)/python -m tools.coverage_report --check build/.coverage-unit
	@kernel=$$($(BIN)/python -m tools.blas --other); \
	echo "the tests of trained numbers again, on OpenBLAS's $$kernel kernel (OPENBLAS_CORETYPE=$$kernel)"; \
	OPENBLAS_CORETYPE=$$kernel $(BIN)/python -m pytest -q -p no:cacheprovider tests -m "trained and not browser"

# Line coverage of lnlib by the unit suite, published in docs/coverage.md (tools/coverage_report.py). test-unit above
# runs the same suite under coverage.py and fails when the figure falls more than a point below the published one
# (tracing costs the unit suite about a fifth more time).
coverage: $(STAMP)
	@mkdir -p build
	$(BIN)/python -m coverage run --data-file=build/.coverage --source=lnlib -m pytest -q -p no:cacheprovider tests -m "not browser and not english"
	$(BIN)/python -m tools.coverage_report build/.coverage

# Offline where the machine allows it: `unshare -rn` (Linux user namespaces) gives a private network namespace with
# only loopback up (the kernels talk to nbval over 127.0.0.1), so any hidden network use in a notebook fails.
# Stored outputs must hold on every machine, so strict nbval runs twice, side by side: in this machine's own setup
# and on a second path — OpenBLAS's generic kernel (OPENBLAS_CORETYPE=Prescott) without the JIT (NUMBA_DISABLE_JIT=1,
# a learner without numba). An output that depends on a CPU's kernel or on the code path fails one of the two.
# (tests.nbval_alt, loaded by $(NBVAL), also sets LNLIB_REVEAL=all: nbval compares the stored view, every %%reveal
# cell open, never the learner's progress file on this machine)
NBVAL_PYTEST := $(BIN)/python -m pytest -q -p no:cacheprovider $(NBVAL)
NBVAL_RUN := $(NBVAL_PYTEST) notebooks
OTHER_PATH := OPENBLAS_CORETYPE=Prescott NUMBA_DISABLE_JIT=1
OFFLINE_SETUP = if unshare -rn sh -c 'ip link set lo up' 2>/dev/null; then \
		echo "$@: offline (unshare -rn, loopback only)"; \
		wrap="unshare -rn sh -c"; pre="ip link set lo up && "; \
	else \
		echo "note: unshare -rn is not available here, so the notebooks run WITH network access"; \
		wrap="sh -c"; pre=""; \
	fi
test-notebooks: $(STAMP)
	@$(OFFLINE_SETUP); \
	mkdir -p build; \
	$$wrap "$${pre}env $(OTHER_PATH) $(NBVAL_RUN)" > build/nbval-other-path.log 2>&1 & other=$$!; \
	$$wrap "$${pre}$(NBVAL_RUN)"; own=$$?; \
	wait $$other; rc=$$?; \
	echo "--- the same notebooks with $(OTHER_PATH):"; \
	if [ $$rc -eq 0 ]; then tail -n 1 build/nbval-other-path.log; else cat build/nbval-other-path.log; fi; \
	test $$own -eq 0 -a $$rc -eq 0

# Within `make test` one pass is enough for the Chinese notebooks, the second path: the stored outputs come from a
# run on the maintainer's own path, so a stale output, hidden randomness and an output that depends on the CPU's
# kernel or on numba all show there as a difference. (`make test-notebooks` runs both, to tell those apart.)
# The English edition (notebooks/en/, inside `notebooks`, so in the same pass) then runs on this machine's own path
# too: its outputs are new and regenerated more often, so both paths, one after the other in this lane.
EN_NOTEBOOKS = $(wildcard notebooks/en/[0-9][0-9]-*.ipynb)
test-notebooks-other-path: $(STAMP)
	@$(OFFLINE_SETUP); \
	echo "strict nbval with $(OTHER_PATH)"; \
	$$wrap "$${pre}env $(OTHER_PATH) $(NBVAL_RUN)" || exit 1; \
	if [ -n "$(EN_NOTEBOOKS)" ]; then \
		echo "strict nbval of the English edition on this machine's own path"; \
		$$wrap "$${pre}$(NBVAL_PYTEST) notebooks/en"; \
	fi

# The English smoke run (issue 43): every notebook executed with LNLIB_LANG=en and every %%reveal open, and no output
# (text, HTML, alt text, the widgets' words) holds Chinese other than the example's tokens, the cell's own words,
# notebook 16's corpus or a quoted example (tests/test_english_run.py, marker `english`). 35 s on an idle 2-core
# machine, about 3 minutes on a busy one.
test-english: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m english tests/test_english_run.py

# Real browser (issue 6): every notebook run in JupyterLab + Debian's Chromium (/usr/bin/chromium, driven by
# Playwright), every explorer moved; screenshots and report.json in build/browser/. Without Chromium the tests skip
# and say why (-rs). The static site in Chromium: tests/browser/test_site_browser.py (contrast in both colour
# schemes) and the one browser test of tests/test_delivery.py (nothing fetched, math typeset), which the unit
# suite (-m "not browser") leaves out.
.PHONY: test-browser
test-browser: $(STAMP)
	$(BIN)/python -m pytest -q -rs -m browser tests/browser tests/test_delivery.py

# `make test-soak` (issue 31; not part of `make test`): the suites of `make test` run SOAK_RUNS times while SOAK_LOAD
# busy processes load the cores; prints every test that failed in any run (tools/soak.py). For one suite:
# make test-soak SOAK_TARGETS=test-unit SOAK_RUNS=2
SOAK_RUNS ?= 3
SOAK_LOAD ?= 4
SOAK_TARGETS ?= test-unit test-notebooks-other-path test-browser test-english
.PHONY: test-soak
test-soak: $(STAMP)
	$(BIN)/python -m tools.soak --runs $(SOAK_RUNS) --load $(SOAK_LOAD) --out build/soak -- \
		$(MAKE) --no-print-directory -j3 --output-sync=target $(SOAK_TARGETS)

# The generated header, footer and course map of every notebook (from tools/course.toml).
nav: $(STAMP)
	$(BIN)/python -m tools.nav

# Teachers, from a fresh clone (README, docs/teacher-guide.md). `make repo REPO=owner/name [BRANCH=b]` sets the one
# repository setting every launch link comes from (needs the learner's environment: it rewrites the notebooks).
# `make hub-link HUB=hub.example.edu [REPO=owner/name] [BRANCH=b] [NOTEBOOK=notebooks/03-….ipynb] [PARENT=courses]
# [EDITION=en]` prints the nbgitpuller link (EDITION=en: the English edition's course map): tools.hub_link needs only the standard library, so any Python 3.11.2+ runs it, no
# install. `make simulate-binder` builds Binder's image in build/binder-sim (network, ~1 GB, a few minutes).
.PHONY: repo hub-link simulate-binder
repo: $(RUNTIME_STAMP)
	@if [ -z "$(REPO)" ]; then echo "make repo: say which repository: make repo REPO=owner/name [BRANCH=branch]" >&2; exit 2; fi
	$(BIN)/python -m tools.nav --repo "$(REPO)" $(if $(BRANCH),--branch "$(BRANCH)")

hub-link: python-check
	@if [ -z "$(HUB)" ]; then echo "make hub-link: say which hub: make hub-link HUB=hub.example.edu [REPO=owner/name]" >&2; exit 2; fi
	@$(PYTHON) -m tools.hub_link "$(HUB)" $(if $(REPO),"$(REPO)") $(if $(BRANCH),--branch "$(BRANCH)") \
		$(if $(NOTEBOOK),--notebook "$(NOTEBOOK)") $(if $(PARENT),--parent-path "$(PARENT)") --edition "$(EDITION)"

simulate-binder: python-check
	$(PYTHON) -m tools.simulate_binder --python "$(PYTHON)"

# What a Hub link may hand out (tools/student_release.py): the student copies, lnlib, binder/ — no solutions, no
# teacher guide. `make student-release BRANCH=student` commits it onto branch `student` (push it, then
# `make hub-link … BRANCH=student`); without BRANCH it is written to build/student-release/. After a re-pull,
# `make stale-cells SINCE=student~1 STUDENTS=dir` lists the students whose notebooks kept an old version of a cell
# changed since that release (dir: one folder per student, their notebooks anywhere below).
.PHONY: student-release stale-cells
student-release: $(RUNTIME_STAMP)
	$(BIN)/python -m tools.student_release $(if $(BRANCH),--branch "$(BRANCH)",--out build/student-release)

stale-cells: $(RUNTIME_STAMP)
	@if [ -z "$(SINCE)" ] || [ -z "$(STUDENTS)" ]; then echo "make stale-cells: make stale-cells SINCE=student~1 STUDENTS=dir [BRANCH=student]" >&2; exit 2; fi
	$(BIN)/python -m tools.student_release --stale "$(SINCE)" --students "$(STUDENTS)" $(if $(BRANCH),--new "$(BRANCH)")

# Maintainers: re-run every notebook from a clean kernel and save its outputs ("Restart & Run All").
notebooks: $(STAMP)
	$(BIN)/python -m tools.nav
	$(BIN)/python -m tools.run_notebooks

# Course delivery (docs/teacher-guide.md): the static site and the student copies, built offline from the notebooks.
.PHONY: site student
# The site refuses the placeholder repository OWNER/REPO (its Binder links would not open): set it first with
# `make repo REPO=owner/name`, or build a preview with `make site PREVIEW=1`.
site: $(STAMP)
	$(BIN)/python -m tools.build_site --out build/site $(if $(PREVIEW),--preview)

student: $(STAMP)
	$(BIN)/python -m tools.make_student --out build/student

# The whole course as one PDF (build/course.pdf): the static site's pages printed in course order by headless
# Chromium (/usr/bin/chromium, driven by Playwright) with tools/site/print.css, after a contents page. Offline.
# The printed course has no Binder button, so it is built from a preview of the site (any repository setting).
# EDITION=en: the English edition's PDF, build/course-en.pdf.
pdf: $(STAMP)
	$(BIN)/python -m tools.build_site --out build/site-print --preview
	$(BIN)/python -m tools.pdf $(if $(filter en,$(EDITION)),--site build/site-print/en --out build/course-en.pdf --edition en,--site build/site-print --out build/course.pdf)

# Graded assignments (docs/teacher-guide.md, "布置和批改作业"): for the chosen notebooks and every student id of
# ROSTER, a student release in build/assignments/release/<id>/ and the teacher's material (source notebooks with the
# answers, the manifest) in build/assignments/; each student's numbers come from the id and the teacher's secret
# ($$LNLIB_GRADING_SECRET, else ~/.config/lnlib-grading/secret, made on first use).
# `make grade SUBMISSIONS=dir` reads every returned notebook (typed answers judged without running anything), runs
# each function cell alone in a bubblewrap sandbox (CELL_TIMEOUT seconds for the cell, 5 s per test call, GRADE_JOBS
# students at once) and writes build/grades/grades.csv and build/grades/feedback/<id>.md. Without bubblewrap it
# refuses; UNSAFE=1 grades without the sandbox (trusted work only; the sheet and the feedback say so).
# COURSE_LANG=en: the tools' words in English (the feedback; the notebook's student-id line, points, answer-cell
# comments and check before handing in), default zh. Not LANG, which is the shell's locale (C.UTF-8, en_US.UTF-8).
NOTEBOOKS ?= 03 07
COURSE_LANG ?= zh
ROSTER ?= assignments/roster-example.txt
# On a JupyterHub with nbgrader's exchange (the guide's 5. 收回): `make release-exchange` puts every student's copy in
# EXCHANGE as the assignment hw03-<id>; after the students submitted, `make collect` copies each student's own latest
# submission to build/submissions (then: make grade SUBMISSIONS=build/submissions).
EXCHANGE ?= /srv/nbgrader/exchange
COURSE ?= lnlib
CELL_TIMEOUT ?= 10
GRADE_JOBS ?= 2
.PHONY: assignments grade release-exchange collect
assignments: $(STAMP)
	$(BIN)/python -m tools.assignments --notebooks $(NOTEBOOKS) --roster $(ROSTER) --out build/assignments --lang $(COURSE_LANG)

release-exchange: $(STAMP)
	$(BIN)/python -m tools.exchange release --exchange $(EXCHANGE) --course $(COURSE) --assignments build/assignments

collect: $(STAMP)
	$(BIN)/python -m tools.exchange collect --exchange $(EXCHANGE) --course $(COURSE) --assignments build/assignments --out build/submissions

grade: $(STAMP)
	@if [ -z "$(SUBMISSIONS)" ]; then echo "make grade: say where the submissions are: make grade SUBMISSIONS=dir" >&2; exit 2; fi
	$(BIN)/python -m tools.grade $(SUBMISSIONS) --assignments build/assignments --out build/grades --cell-timeout $(CELL_TIMEOUT) --jobs $(GRADE_JOBS) --lang $(COURSE_LANG) $(if $(UNSAFE),--unsafe-no-sandbox)

clean:
	rm -rf $(VENV) build
