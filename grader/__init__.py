"""The grader: the book's second half, which grades students' notebooks where their code cannot reach.

Each command is a module of this package, run from the checkout's top folder (``make`` does)::

    python -m grader grade SUBMISSIONS [--out OUT] [-j 2] [--key KEY [--roster CSV]] ...   # make grade
    python -m grader collect --from download.zip --roster CSV --lms canvas --out DIR        # make collect
    python -m grader variants key|handout|reroll|show ...                 # make course-key, make handout
    python -m grader assignment path/to/hw1.md [--out DIR]                                  # make assignment
    python -m grader gradescope build --page PAGE | run [--root /autograder]                # make gradescope

``python -m grader COMMAND --help`` says what each does.  The stages, one module each, in the order a
notebook meets them; an arrow points from a module to those it imports, never back
(tests/test_grader_layout.py):

* :mod:`grader.common`  - paths, limits, sizes, and text made safe (``bounded``, ``escape``, ``fence``);
* :mod:`grader.variants` - the course key, the roster, each student's seeds, the handout folders;
* :mod:`grader.collect` - an LMS's download of the class -> ``<student>.ipynb`` (``make collect``);
* :mod:`grader.find`    - the student editions, which edition a submission is, its variant seeds, the plan
  of its run;
* :mod:`grader.source`  - a notebook's cells as code, read and never run (what an answer uses);
* :mod:`grader.syscalls` - the seccomp filter of every sandboxed process (Docker's default profile, tighter);
* :mod:`grader.sandbox` - bubblewrap and cgroups: one sealed kernel per student, one host user per kernel
  slot; :mod:`grader.container` - the boundary where bubblewrap cannot start (Gradescope's container);
* :mod:`grader.wire`, :mod:`grader.agent` - plain data on both sides, and what runs in the kernel;
* :mod:`grader.kernel`  - the grader's end of the kernel: cells, requests, replies as data;
* :mod:`grader.judge`   - the checks of ``lib.checks``, run here on the kernel's plain data; the authorship
  rule;
* :mod:`grader.assignment` - an instructor's own homework (``--assignment hw1.md``): its page, public and
  hidden checks, student notebook and answer key, and the judging of both checks;
* :mod:`grader.run`     - one submission from file to result, in its own process (:mod:`grader.preload`: what
  the fork server imports once for every worker);
* :mod:`grader.similarity` - answers compared by winnowing their normalised code (a report, never a grade);
* :mod:`grader.report`  - the results as trusted data: grades.csv, variants.csv, feedback, summary;
* :mod:`grader.lms`     - the grade book: the roster's students as an LMS's import file (``--lms``);
* :mod:`grader.feedback_html` - ``OUT/feedback/<student>.html``, linked to the web book;
  :mod:`grader.upload` - the feedback pages named for the LMS's bulk upload (from ``collected.csv``);
* :mod:`grader.grade`   - the command line that grades the whole class;
* :mod:`grader.gradescope` - Gradescope's autograder.zip, and the grading of its one submission.

The grader reads the book through ``lib`` (the checks) and two readers in ``tools/`` (``book.py``: the
pages' sources and the configuration; ``student.py``: what a student edition must be); nothing in
``tools/`` or ``lib`` imports the grader.  What the sandbox is and is not: the guide/grading.md,
"Teaching with this book", and the maintainer's guide/maintainer/grader.md.
"""
