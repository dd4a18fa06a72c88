# The book's commands.  `make book` and `make test` work on a fresh machine:
# they create .venv and install requirements.txt when needed.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# One BLAS/OpenMP thread: printed numbers must not depend on thread count.
THREADS := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 BLIS_NUM_THREADS=1 PYTHONHASHSEED=0
NOTEBOOKS := $(sort $(wildcard chapters/*.ipynb))
JB_BUILD := $(VENV)/bin/jupyter-book build . --all -W -n --keep-going

.PHONY: help install book test test-lane-unit test-lane-notebooks unit nbval nbval-2threads nbval-kernels nbval-other build-check browser pdf pdf-check notebooks student slides slides-pdf serve clean bench grade collect course-key handout assignment test-oldest dist test-wheel site-wheel gradescope

help:
	@echo "make book       build the HTML book into _build/html (creates .venv if missing)"
	@echo "make test       run every test: unit, notebook sync, student edition, nbval (1 and 2 threads, Prescott kernels), -W build, browser, PDF"
	@echo "make notebooks  re-execute chapters whose notebook no longer matches its .md; regenerate student notebooks"
	@echo "make student    regenerate the student notebooks only"
	@echo "make slides     build the lecture slides, one reveal.js deck per page, into _build/slides (guide/slides.md)"
	@echo "make slides-pdf one PDF per slide deck (reveal.js's print view in Chromium) into _build/slides/pdf"
	@echo "make pdf        build the instructor's PDF (solutions inline) into _build/latex/book.pdf"
	@echo "make serve      serve _build/html on http://127.0.0.1:8000"
	@echo "make bench      run the benchmarks against scikit-learn"
	@echo "make grade SUBMISSIONS=dir [KEY=course.key] [ROSTER=roster.csv LMS=canvas] [STUDENT=s01] [OUT=dir]  grade homework (see guide/grading.md)"
	@echo "make collect FROM=download.zip ROSTER=roster.csv LMS=canvas OUT=dir  submissions in from the LMS's download"
	@echo "make course-key KEY=course.key   write a new course key (per-student variants)"
	@echo "make handout ROSTER=roster.csv KEY=course.key [OUT=handout]  one folder of notebooks per student"
	@echo "make assignment SRC=path/hw1.md   an instructor's own homework: student notebook and answer key"
	@echo "make gradescope PAGE=page | ASSIGNMENT=path/hw1.md [KEY=course.key [ROSTER=roster.csv]]  Gradescope's autograder.zip (guide/gradescope.md)"
	@echo "make test-wheel  run every student notebook as on Colab: oldest stack, set-up cell installs the built wheel"
	@echo "make dist       build lib's sdist and py3-none-any wheel into dist/ and check them (twine, file list)"
	@echo "make site-wheel put lib's wheel into the built book (_build/html/wheels/, simple/), as the Pages deploy does"

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade --quiet pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip check
	touch $(STAMP)

install: $(STAMP)

book: $(STAMP)
	$(JB_BUILD)
	@echo "The book is at file://$(CURDIR)/_build/html/index.html (or run: make serve)"

test: $(STAMP)
	# Debian's Chromium and TeX Live, when missing, install in the background while the
	# first tests run (a new machine saves their ~5 minutes); browser and pdf wait for them.
	mkdir -p _build
	# bubblewrap, the grader's sandbox, before the tests that need it (seconds; nothing when present)
	bash tools/install_sandbox.sh
	# reveal.js for the slides (npm ci in browser_tests/: seconds; nothing when present)
	bash tools/install_reveal.sh
	(bash tools/install_browser.sh && bash tools/install_tex.sh) > _build/install.log 2>&1 & echo $$! > _build/install.pid
	$(VENV)/bin/ruff check .
	# chapter code within 88 columns: it fits the page in the PDF and the HTML
	$(VENV)/bin/ruff check --select E501 --line-length 88 $(NOTEBOOKS)
	# Two lanes side by side, one per core: each job inside is single-threaded but the grader's
	# (two sandboxed kernels) and nbval-other (two BLAS threads); each lane's output is printed when
	# it ends (test-lane-unit, test-lane-notebooks below).
	$(MAKE) -j2 --output-sync=target test-lane-unit test-lane-notebooks

# The lanes of `make test`, side by side, of about equal length. Each writes where the other does
# not read: the unit tests (which run the student builder and build the wheel), the wheel as Colab
# gets it (every student notebook installs it through its set-up cell), the -W build, the browser
# tests and the PDF share _build/ and build/, so they take turns in one lane; nbval (one thread;
# two threads on another CPU's kernels) only executes the committed notebooks, and the grader's
# tests (GRADING_TESTS: they grade classes in the sandbox, most of pytest's time) read the
# committed student editions and write under their own temporary folders.
# (The mutation test and the similarity report's unit tests grade nothing: they run in the unit lane, which
# on a fresh clone at 782dcd5 ended 1 min 46 s before this one.)
GRADING_TESTS := $(sort $(wildcard tests/test_grade*.py)) tests/test_variants.py tests/test_shortcuts.py \
  tests/test_sandbox_audit.py tests/test_assignment.py
test-lane-unit: $(STAMP)
	@date +'test-lane-unit: started at %T'
	$(THREADS) $(PY) -m pytest $(addprefix --ignore=,$(GRADING_TESTS))
	$(MAKE) test-wheel
	$(MAKE) build-check
	# Chromium and TeX Live (installing in the background since `make test` began)
	while kill -0 "$$(cat _build/install.pid 2>/dev/null)" 2>/dev/null; do sleep 2; done
	$(MAKE) browser
	$(MAKE) pdf-check
	@date +'test-lane-unit: ended at %T'

test-lane-notebooks: $(STAMP)
	@date +'test-lane-notebooks: started at %T'
	$(MAKE) nbval
	$(MAKE) nbval-other
	$(THREADS) $(PY) -m pytest -p no:cacheprovider $(GRADING_TESTS)
	@date +'test-lane-notebooks: ended at %T'

unit: $(STAMP)
	$(THREADS) $(PY) -m pytest

nbval: $(STAMP)
	$(THREADS) $(PY) -m pytest -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg $(NOTEBOOKS)

# The same comparison with two BLAS threads: rounded printing must hide thread-count noise.
nbval-2threads: $(STAMP)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 MKL_NUM_THREADS=2 PYTHONHASHSEED=0 \
	  $(PY) -m pytest -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg $(NOTEBOOKS)

# The same comparison on another CPU's kernels: OpenBLAS picks its kernels from the CPU (threadpoolctl
# names them) and numpy its loops (exp and log differ in the last bit with and without AVX-512), so
# another CPU rounds differently.  Prescott (SSE3) kernels run on any x86-64 CPU; the feature names are
# numpy's AVX-512 groups (elsewhere numpy ignores them with an ImportWarning, not shown).
OTHER_KERNELS := OPENBLAS_CORETYPE=Prescott NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR"
nbval-kernels: $(STAMP)
	$(OTHER_KERNELS) $(THREADS) \
	  $(PY) -m pytest -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg $(NOTEBOOKS)

# What `make test` runs: both changes at once (two threads and another CPU's kernels), one
# execution instead of two. An output that moved with either moves here (the two would have to
# cancel to the last printed digit); nbval-2threads and nbval-kernels tell which one it was.
nbval-other: $(STAMP)
	$(OTHER_KERNELS) OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 MKL_NUM_THREADS=2 PYTHONHASHSEED=0 \
	  $(PY) -m pytest -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg $(NOTEBOOKS)

build-check: $(STAMP)
	$(JB_BUILD)

# The built book in headless Chromium, offline: math typeset, links, images, alt text,
# folded solutions, launch buttons, dark mode; screenshots in _build/screenshots/; the slides.
browser: $(STAMP)
	bash tools/install_browser.sh
	# the newest axe-core from npm, audited beside the bundled one (browser_tests/package.json)
	bash tools/install_axe.sh
	# the lecture slides from the doctrees of the build just made (browser_tests/test_slides.py)
	bash tools/install_reveal.sh
	$(PY) tools/slides.py
	$(THREADS) $(PY) -m pytest browser_tests

notebooks: $(STAMP)
	$(THREADS) $(PY) tools/book.py execute
	$(PY) tools/student.py
	# The check cells know the edition's own cells by fingerprint (lib/checks/_edition_cells.py, from the
	# student editions just written): where those changed, the pages ran against the old ones and their
	# checks would call the book's own code the student's, so they run again against the new ones.
	$(PY) tools/edition_cells.py --check || { $(PY) tools/edition_cells.py && \
	  $(THREADS) $(PY) tools/book.py execute --all && $(PY) tools/student.py; }

# The student builder (_ext/student_edition.py) reuses the HTML build's _build/.doctrees.
student: $(STAMP)
	$(PY) tools/student.py
	$(PY) tools/edition_cells.py

# Lecture slides (guide/slides.md, "Slides"): the slides builder (_ext/slide_decks.py) reuses the HTML build's
# doctrees and links every slide to the web book, so it builds the book first when it is missing.
slides: $(STAMP)
	bash tools/install_reveal.sh
	test -f _build/html/index.html || $(MAKE) book
	$(PY) tools/slides.py

# One PDF per deck (guide/slides.md, "Slides"): reveal.js's print view (?print-pdf, one page per slide) printed by
# the browser tests' Chromium (tools/install_browser.sh) -> _build/slides/pdf/<page>.pdf, linked from
# _build/slides/index.html.
slides-pdf: slides
	bash tools/install_browser.sh
	$(PY) tools/slides.py --pdf

# The PDF prints solutions inline: it is the instructor's edition.  Installs
# TeX Live from Debian's packages when missing (tools/install_tex.sh).
pdf: $(STAMP)
	bash tools/install_tex.sh
	$(VENV)/bin/jupyter-book build . --builder pdflatex -W -n --keep-going
	@echo "The PDF is at $(CURDIR)/_build/latex/book.pdf"

# The PDF read back (pdf_tests/): titles, chapter numbers, references, figures
# (counted against the HTML build, which make test has just made), solutions.
pdf-check: pdf
	$(PY) -m pytest pdf_tests

serve:
	@echo "Serving _build/html on http://127.0.0.1:8000 (Ctrl-C to stop)"
	$(PY) -m http.server --directory _build/html --bind 127.0.0.1 8000

bench: $(STAMP)
	$(PY) benchmarks/bench_mixture.py --cases
	$(PY) benchmarks/bench_fits.py
	$(PY) benchmarks/bench_mixture.py
	$(PY) benchmarks/bench_discriminant.py
	$(PY) benchmarks/bench_threads.py

# Grade homework: every .ipynb in SUBMISSIONS (one per student) -> OUT/grades.csv and OUT/feedback/.
# Each notebook runs in a sandbox (bubblewrap + cgroups, set up as root, run as the user gm-sandbox that
# tools/install_sandbox.sh creates; see guide/maintainer/grader.md). Relative paths are
# relative to this folder. Extra options (limits, -j, --chapter, --force, --unsafe-no-sandbox):
# GRADE_ARGS="..." or python -m grader grade --help.
# KEY=course.key judges each student's own variants (grader/variants.py); ROSTER=roster.csv names
# whose handout a notebook is also for students who handed in nothing.
# The grade book (guide/grade_book.md, "The grade book"): LMS=canvas|moodle|gradescope (with ROSTER) writes OUT/<lms>.csv,
# LMS_COLUMNS=exercise one column per exercise; STUDENT=s01[,s02] grades only those again.
GRADE_BOOK_ARGS = $(if $(LMS),--lms "$(LMS)") $(if $(LMS_COLUMNS),--lms-columns "$(LMS_COLUMNS)") $(if $(LMS_ASSIGNMENT),--lms-assignment "$(LMS_ASSIGNMENT)") $(if $(STUDENT),--student "$(STUDENT)")
# FROM=download.zip (with ROSTER= and LMS=, one LMS) collects the LMS's download into OUT/submissions first
# (make collect), then grades that folder; grade it again with SUBMISSIONS=OUT/submissions.
OUT ?= grades
GRADED = $(if $(FROM),$(OUT)/submissions,$(SUBMISSIONS))
grade: $(STAMP)
	@test -n "$(SUBMISSIONS)$(FROM)" -a -z "$(and $(SUBMISSIONS),$(FROM))" || { echo "usage: make grade SUBMISSIONS=folder [KEY=course.key] [ROSTER=roster.csv] [OUT=folder] [GRADE_ARGS=...]"; echo "   or: make grade FROM=download.zip ROSTER=roster.csv LMS=canvas|moodle|gradescope [OUT=folder] ... (collects into OUT/submissions first)"; exit 2; }
	@test -z "$(FROM)" -o \( -n "$(ROSTER)" -a -n "$(LMS)" \) || { echo "make grade FROM=...: ROSTER= and LMS= say whose notebooks the download holds"; exit 2; }
	@bash tools/install_sandbox.sh
	$(if $(FROM),$(PY) -m grader collect --from "$(FROM)" --roster "$(ROSTER)" --lms "$(LMS)" --out "$(GRADED)")
	$(PY) -m grader grade "$(GRADED)" --out "$(OUT)" $(if $(KEY),--key "$(KEY)") $(if $(ROSTER),--roster "$(ROSTER)") $(GRADE_BOOK_ARGS) $(if $(ASSIGNMENT),--assignment "$(ASSIGNMENT)") $(GRADE_ARGS)

# Submissions in from the LMS (guide/grade_book.md, "The grade book"): the zip that Canvas's "Download Submissions",
# Moodle's "Download all submissions" or Gradescope's "Export Submissions" gives -> OUT/<student>.ipynb
# (mapped by the LMS's ids in the roster) and OUT/collected.csv, ready for make grade SUBMISSIONS=OUT.
collect: $(STAMP)
	@test -n "$(FROM)" -a -n "$(ROSTER)" -a -n "$(LMS)" -a -n "$(filter command line environment,$(origin OUT))" || { echo "usage: make collect FROM=download.zip ROSTER=roster.csv LMS=canvas|moodle|gradescope OUT=folder"; exit 2; }
	$(PY) -m grader collect --from "$(FROM)" --roster "$(ROSTER)" --lms "$(LMS)" --out "$(OUT)"

# Variants (guide/grading.md, "Teaching with this book"): a course key, then one folder of notebooks per
# student with that student's numbers. OUT defaults to handout/ here.
course-key:
	@test -n "$(KEY)" || { echo "usage: make course-key KEY=course.key"; exit 2; }
	$(PY) -m grader variants key "$(KEY)"

handout: $(STAMP)
	@test -n "$(ROSTER)" -a -n "$(KEY)" || { echo "usage: make handout ROSTER=roster.csv KEY=course.key [OUT=handout]"; exit 2; }
	$(PY) -m grader variants handout --roster "$(ROSTER)" --key "$(KEY)" --out "$(if $(filter command line environment,$(origin OUT)),$(OUT),handout)" $(if $(ASSIGNMENT),--assignment "$(ASSIGNMENT)")

# An instructor's own homework (issue 39; guide/grading.md, "Teaching with this book"): path/to/hw1.md with
# checks.py and hidden_checks.py beside it -> path/to/build/hw1.ipynb (the student notebook) and
# hw1.key.ipynb (the answer key, executed: every public and hidden check must pass). Hand it out with
# `make handout ... ASSIGNMENT=path/to/hw1.md`, grade it with `make grade ... ASSIGNMENT=path/to/hw1.md`.
assignment: $(STAMP)
	@test -n "$(SRC)" || { echo "usage: make assignment SRC=path/to/hw1.md"; exit 2; }
	$(THREADS) $(PY) -m grader assignment "$(SRC)"

# Gradescope's autograder (issue 55; guide/gradescope.md, "Gradescope"): build/gradescope/<name>/autograder.zip for a
# page of the book (PAGE=04_em_gaussian_mixtures) or an instructor's homework (ASSIGNMENT=path/hw1.md),
# with KEY= (and ROSTER=) for each student's own variants; ID_FIELD=sid (default) names the field of
# Gradescope's submission metadata that is the roster's student. It holds lib's wheel as `make dist`
# builds it: the wheel is rebuilt (and build/ emptied, older bundles with it) only when lib changed.
LIB_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
LIB_WHEEL := dist/genmodels_lib-$(LIB_VERSION)-py3-none-any.whl
$(LIB_WHEEL): pyproject.toml $(shell find lib -type f \( -name '*.py' -o -name '*.txt' -o -name '*.gz' -o -name '*.js' \))
	$(MAKE) dist

gradescope: $(STAMP) $(LIB_WHEEL)
	@test -n "$(PAGE)$(ASSIGNMENT)" || { echo "usage: make gradescope PAGE=04_em_gaussian_mixtures | ASSIGNMENT=path/hw1.md [KEY=course.key [ROSTER=roster.csv]] [ID_FIELD=sid]"; exit 2; }
	$(PY) -m grader gradescope build $(if $(PAGE),--page "$(PAGE)") $(if $(ASSIGNMENT),--assignment "$(ASSIGNMENT)") $(if $(KEY),--key "$(KEY)") $(if $(ROSTER),--roster "$(ROSTER)") $(if $(ID_FIELD),--id-field "$(ID_FIELD)") --wheel "$(LIB_WHEEL)"

# The wheel as Colab gets it (guide/maintainer/versions.md, "Supported versions"): every student notebook, top
# to bottom, from a folder outside the checkout, on the oldest stack the book supports (guide/maintainer/versions.md)
# (requirements-oldest.txt, like Colab's), where the page's own set-up cell installs
# genmodels-lib from the wheel `make dist` built, with no package index (tools/oldest.py).
# .venv-oldest holds that stack and not lib. It is kept between runs, but rebuilt from
# scratch when requirements-oldest.txt changes or when it holds anything else than a
# fresh build recorded (pip freeze), so that a kept venv cannot hide a failure.
# OLDEST_NOTEBOOKS=student/x.ipynb runs a subset. `make test-oldest` is the same.
OLDEST_VENV := .venv-oldest
OLDEST_PY := $(OLDEST_VENV)/bin/python
OLDEST_STAMP := $(OLDEST_VENV)/.installed
OLDEST_NOTEBOOKS ?=
$(OLDEST_STAMP): requirements-oldest.txt
	rm -rf $(OLDEST_VENV)
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_PY) -m pip install --quiet --upgrade pip
	$(OLDEST_PY) -m pip install --quiet -c requirements-oldest.txt -r requirements-oldest.txt
	$(OLDEST_PY) -m pip check
	$(OLDEST_PY) -m pip freeze --all > $(OLDEST_VENV)/freeze.txt
	touch $@

test-wheel: dist
	$(OLDEST_PY) -m pip uninstall --quiet --yes genmodels-lib 2>/dev/null || true
	$(OLDEST_PY) -m pip freeze --all 2>/dev/null | cmp -s - $(OLDEST_VENV)/freeze.txt || rm -f $(OLDEST_STAMP)
	$(MAKE) $(OLDEST_STAMP)
	env -u PYTHONPATH $(THREADS) $(OLDEST_PY) tools/oldest.py --wheel-dir dist $(OLDEST_NOTEBOOKS)

test-oldest: test-wheel

# The release files (guide/maintainer/publishing.md, "Releasing"): the sdist and the pure-Python wheel of lib, as the
# release workflow builds and publishes them. DIST_DEPS= lets that workflow run it without .venv.
DIST_DEPS ?= $(STAMP)
dist: $(DIST_DEPS)
	rm -rf dist build
	$(PY) -m build --outdir dist .
	$(PY) -m twine check --strict dist/*
	$(PY) tools/release.py check-dist dist

# lib's wheel on the book's site (guide/maintainer/publishing.md, "Publishing"): the Pages deploy runs this once `make test` has
# built _build/html, so that every set-up cell, which names <site>/wheels/ with --find-links, installs
# the wheel where PyPI has no release (a fork's, on the day its site is published).
site-wheel: dist
	$(PY) tools/site_wheel.py dist _build/html

clean:
	rm -rf _build build dist
