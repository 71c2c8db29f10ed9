# Two commands do all the set-up on a fresh machine:
#   make book   build the HTML book, executing every chapter   -> _build/html/index.html
#   make test   unit tests, every chapter under nbval, a strict build, checks of the site
VENV    ?= .venv
PYTHON  ?= python3
BIN      = $(VENV)/bin
STAMP    = $(VENV)/.installed
BUILD_FLAGS = --warningiserror --keep-going
# The chapters' linear algebra is small (at most 768 wide): BLAS threads only add
# synchronisation, and on a busy machine they make a chapter many times slower.
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: book test lint unit control notebooks chapters rehearsal strict-book pdf site student \
        bench lab clean
NOTEBOOKS = _build/notebooks

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

# The chapters execute afresh, two at a time, into the build's cache (outputs depend on the
# checkpoint, which the cache cannot see); the build renders them from there.
book: control
	rm -rf _build/.jupyter_cache
	$(BIN)/python -m book_tools.execute
	$(BIN)/jupyter-book build . $(BUILD_FLAGS)

# After the strict build, the PDF and the checks of the site run side by side (2 cores).
test: lint unit chapters rehearsal strict-book
	$(MAKE) -j2 pdf site

# The chapters are linted through jupytext's Python view of them. Not enforced there: the
# notebook idioms (imports mid-file, an expression that displays, zip without strict), and
# line length, which the chapter tests check on code cells only (prose becomes comments).
lint: $(STAMP)
	$(BIN)/ruff check attention_book book_tools tests
	$(BIN)/jupytext --quiet --check "$(CURDIR)/$(BIN)/ruff check --line-length 79 --ignore E402,E731,E501,B905,B015,B018,I001 {}" book/[0-9]*.md book/notation.md

unit: control
	$(BIN)/python -m pytest tests -q -p no:cacheprovider -n 2

# The random-init control every GPT-2 check also runs on: built once into the user cache.
control: $(STAMP)
	$(BIN)/python -c "from attention_book.control import load_control; load_control()"

notebooks: $(STAMP)
	rm -rf $(NOTEBOOKS)
	$(BIN)/python -m book_tools.notebooks $(NOTEBOOKS) > /dev/null

# Every chapter under nbval, through notebooks generated from the MyST sources; one
# notebook per worker, two workers.
chapters: notebooks control
	$(BIN)/python -m pytest --nbval-lax --nbval-current-env -p no:cacheprovider -q \
	  -n 2 --dist loadfile $(NOTEBOOKS)

# Every chapter on the full-shaped rehearsal stand-in (the real attention tensors with
# synthetic wte and MLP weights, never GPT-2), two at a time: the branches that only the
# full checkpoint takes run end to end. Its ledger stays in _build/rehearsal.
rehearsal: control
	$(BIN)/python -m book_tools.rehearsal

strict-book: control
	rm -rf _build/html _build/jupyter_execute _build/.doctrees _build/ledger _build/.jupyter_cache
	$(BIN)/python -m book_tools.execute
	$(BIN)/jupyter-book build . $(BUILD_FLAGS)

site: $(STAMP)
	ATTENTION_BOOK_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/site -q -p no:cacheprovider

# The chapters in JupyterLab, as notebooks (jupytext), with MyST rendered (jupyterlab-myst):
# double-clicking a chapter's .md opens it as a notebook.
# The server's root is the repository, so the file browser shows book/ and every path the
# intro and CONTRIBUTING name (book/NN_x.md) resolves; as root (containers, cloud machines)
# JupyterLab needs --allow-root.
LAB_SETTINGS = $(VENV)/share/jupyter/lab/settings/overrides.json
LAB_OPEN ?= book/01_one_row_three_lenses.md
LAB_ROOT = $(if $(filter 0,$(shell id -u)),--allow-root)
lab: $(STAMP)
	mkdir -p $(dir $(LAB_SETTINGS))
	printf '%s\n' '{"@jupyterlab/docmanager-extension:plugin": {"defaultViewers":' \
	  '{"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}},' \
	  '"@jupyterlab/apputils-extension:notification": {"fetchNews": "false"}}' > $(LAB_SETTINGS)
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" $(LAB_ROOT) $(LAB_FLAGS) \
	  $(LAB_OPEN)

# The student edition: every chapter as a notebook without its solutions (a checking cell
# in their place) and a README, in _build/student; then every one of them is run.
student: control
	rm -rf _build/student
	$(BIN)/python -m book_tools.student _build/student --execute

# The whole book as one PDF, _build/book.pdf, printed by headless Chromium (no LaTeX).
pdf: control
	$(BIN)/python -m book_tools.pdf _build/book.pdf
	ATTENTION_BOOK_REQUIRE_PDF=1 $(BIN)/python -m pytest tests/pdf -q -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python -m book_tools.bench

clean:
	rm -rf _build
