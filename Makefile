# Two commands for a fresh machine: `make lab` (open the course) and `make test` (run every test).
# Both build .venv from binder/requirements.txt — the same pinned environment Binder builds.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: lab test test-unit test-notebooks lint notebooks nav clean

$(STAMP): binder/requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r binder/requirements.txt
	# build matplotlib's font cache now, so no notebook prints "building the font cache" to stderr
	$(BIN)/python -c "import lnlib.plots as p; p.use_cjk_font()"
	touch $(STAMP)

# Containers and cloud workspaces run as root: JupyterLab then needs --allow-root. On Linux without a display there is
# no browser to open, so JupyterLab only prints the URL with its token (open it in the browser of your own machine).
LAB_FLAGS := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root) \
	$(if $(filter Linux,$(shell uname -s 2>/dev/null)),$(if $(DISPLAY)$(WAYLAND_DISPLAY),,--no-browser))

lab: $(STAMP)
	$(BIN)/jupyter lab $(strip $(LAB_FLAGS)) --LabApp.default_url=/lab/tree/notebooks/00-index.ipynb

test: lint test-unit test-notebooks test-browser

lint: $(STAMP)
	$(BIN)/ruff check lnlib tests tools benchmarks
	$(BIN)/python tools/nav.py --check

test-unit: $(STAMP)
	$(BIN)/python -m pytest -q tests -m "not browser"

# Offline where the machine allows it: `unshare -rn` (Linux user namespaces) gives a private network namespace with
# only loopback up (the kernels talk to nbval over 127.0.0.1), so any hidden network use in a notebook fails.
# Stored outputs must hold on every machine, so strict nbval runs twice, side by side: in this machine's own setup
# and on a second path — OpenBLAS's generic kernel (OPENBLAS_CORETYPE=Prescott) without the JIT (NUMBA_DISABLE_JIT=1,
# a learner without numba). An output that depends on a CPU's kernel or on the code path fails one of the two.
NBVAL_RUN := $(BIN)/python -m pytest -q -p no:cacheprovider $(NBVAL) notebooks
OTHER_PATH := OPENBLAS_CORETYPE=Prescott NUMBA_DISABLE_JIT=1
test-notebooks: $(STAMP)
	@if unshare -rn sh -c 'ip link set lo up' 2>/dev/null; then \
		echo "test-notebooks: offline (unshare -rn, loopback only)"; \
		wrap="unshare -rn sh -c"; pre="ip link set lo up && "; \
	else \
		echo "note: unshare -rn is not available here, so the notebooks run WITH network access"; \
		wrap="sh -c"; pre=""; \
	fi; \
	mkdir -p build; \
	$$wrap "$${pre}env $(OTHER_PATH) $(NBVAL_RUN)" > build/nbval-other-path.log 2>&1 & other=$$!; \
	$$wrap "$${pre}$(NBVAL_RUN)"; own=$$?; \
	wait $$other; rc=$$?; \
	echo "--- the same notebooks with $(OTHER_PATH):"; \
	if [ $$rc -eq 0 ]; then tail -n 1 build/nbval-other-path.log; else cat build/nbval-other-path.log; fi; \
	test $$own -eq 0 -a $$rc -eq 0

# Real browser (issue 6): every notebook run in JupyterLab + Debian's Chromium (/usr/bin/chromium, driven by
# Playwright), every explorer moved; screenshots and report.json in build/browser/. Without Chromium the tests skip
# and say why (-rs).
.PHONY: test-browser
test-browser: $(STAMP)
	$(BIN)/python -m pytest -q -rs -m browser tests/browser

# Maintainers: re-run every notebook from a clean kernel and save its outputs ("Restart & Run All").
notebooks: $(STAMP)
	$(BIN)/python tools/nav.py
	$(BIN)/python tools/run_notebooks.py

# Course delivery (docs/teacher-guide.md): the static site and the student copies, built offline from the notebooks.
.PHONY: site student
site: $(STAMP)
	$(BIN)/python tools/build_site.py --out build/site

student: $(STAMP)
	$(BIN)/python tools/make_student.py --out build/student

clean:
	rm -rf $(VENV) build
