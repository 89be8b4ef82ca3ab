# The two commands that do everything on a fresh machine (Python 3.11+):
#   make test   install into .venv, run the unit tests and every notebook at smoke scale
#   make book   install into .venv, build the site into _build/html (default scale, warnings are errors)
#   make check-site   open every built page in headless Chromium (apt-get install chromium chromium-driver)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch is installed first and on its own: a CPU-only machine gets the CPU build, and the
# loose `torch>=2.1` in requirements.txt then installs nothing more.
TORCH  ?= torch==2.13.0
# e.g. https://download.pytorch.org/whl/cpu for the CPU build on a machine without a GPU
TORCH_INDEX ?=
SCALE  ?= default

.PHONY: install test unit lint notebooks book book-smoke check-site sync check-results verify-results bench clean

$(BIN)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) "$(TORCH)" \
		|| $(BIN)/python -m pip install -q torch
	$(BIN)/python -m pip install -q -r requirements.txt
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

install: $(BIN)/.installed

test: install
	$(BIN)/python -m pytest tests -q
	ABC_SCALE=$${ABC_SCALE:-smoke} $(BIN)/python -m pytest --nbmake chapters -q

unit: install
	$(BIN)/python -m pytest tests -q

# ruff (pyproject.toml [tool.ruff]) over lib and tests; installed into the venv on first use
lint: install
	@$(BIN)/python -m ruff --version >/dev/null 2>&1 || $(BIN)/python -m pip install -q "ruff>=0.5"
	$(BIN)/python -m ruff check lib tests

notebooks: install
	ABC_SCALE=$${ABC_SCALE:-smoke} $(BIN)/python -m pytest --nbmake chapters -q

# The execution cache is keyed on the notebooks' code only: a change to lib/ or to the scale must
# empty it, or the book would show outputs computed by other code or at another scale.
EXEC_KEY = $(shell { cat $$(find lib -name '*.py' | sort) 2>/dev/null; echo "scale=$(SCALE)"; } | sha256sum | cut -c1-16)

# --all: Sphinx re-reads every page, so the report card (always executed) sees the claims the
# chapters wrote in this build; unchanged chapters still come from the execution cache.
# MPLBACKEND is unset for the kernels: a non-inline backend (Agg, often set for headless runs)
# would draw every figure off the page (make check-site reports such a page).
book: install
	@mkdir -p _build
	@if [ "$$(cat _build/.exec-key 2>/dev/null)" != "$(EXEC_KEY)" ]; then \
		echo "lib or scale changed: clearing the execution cache"; rm -rf _build/.jupyter_cache; \
		echo "$(EXEC_KEY)" > _build/.exec-key; fi
	env -u MPLBACKEND ABC_SCALE=$(SCALE) $(BIN)/jupyter-book build . --all -W -n --keep-going

book-smoke:
	$(MAKE) book SCALE=smoke

# every page of the built site in Debian's headless Chromium: untypeset math, broken images or
# links, console errors, content wider than the page at 1280 px (tests/check_site.py)
check-site: install
	$(BIN)/python tests/check_site.py _build/html --width 1280

sync: install
	$(BIN)/jupytext --sync chapters/[0-9]*/*.py

check-results: install
	$(BIN)/python -m lib.results check

# re-run a cheap part of every stale result; record it as verified only if the numbers are identical
verify-results: install
	$(BIN)/python -m lib.results verify --stale

bench: install
	$(BIN)/python -m lib.bench ensemble

clean:
	rm -rf _build
