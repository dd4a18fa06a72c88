"""Grade a folder of homework notebooks: each runs sealed off, and is judged where its code never ran.

    python tools/grade.py SUBMISSIONS [--out OUT] [-j 2] [--chapter PAGE] [--force] [--key KEY [--roster CSV]]
    make grade SUBMISSIONS=dir [KEY=course.key] [ROSTER=roster.csv] [OUT=dir]

Every ``.ipynb`` in SUBMISSIONS is one student's notebook (the file name
without ``.ipynb`` is the student id); a folder may mix chapters.  For each,
the grader

1. refuses files over ``--max-notebook-size`` before reading them, then finds
   which page of the book the notebook is the student edition of (its
   ``genmodels.page`` metadata, confirmed by its cells' ids);
2. runs the submission's code cells, top to bottom, in a fresh IPython kernel
   inside a sandbox (``grader/sandbox.py``: bubblewrap, cgroups and seccomp; no network,
   no view of the submissions, the output, the book's sources or the other
   kernels; memory, processes, CPU and a private ``/tmp`` bounded; every
   process killed at the end), with a time limit per cell and per notebook;
3. at each check cell of the student edition (``student/<page>.ipynb``, the
   submission's own copy is ignored), calls the check of ``lib.checks`` *in
   the grading process*, with its own NumPy: the student's answer is a proxy
   that forwards each call to the kernel over the kernel's messaging and gets
   back plain data (numbers, strings, lists, dicts, NumPy arrays as ``.npy``),
   or the name and message of the exception the answer raised
   (``grader/wire.py``, ``grader/agent.py``).  Nothing the kernel
   prints is read; points come from the student edition only.

With ``--key`` (``make grade SUBMISSIONS=dir KEY=course.key``) the exercises
that have variants are judged against the student's own numbers: the grader
recomputes the student's seeds from the key and the student id (and the
re-rolls beside the key), never reads them from the notebook, and gives 0 to a
variant exercise whose variant cell holds another seed, naming the student it
was handed out to (``tools/variants.py``; ``OUT/variants.csv`` lists every
such pair).  Without ``--key`` every variant exercise is judged at the book's
variant 0.

It writes ``OUT/grades.csv`` (one row per submission: student, chapter, one
column per exercise label, total, max), ``OUT/feedback/<student>.md`` and
``.html`` (the page links each exercise to the web book), and
``OUT/results/<student>.json`` (which make a re-run skip that student unless
``--force``), prints a progress bar, the pass rate of every exercise and
whether the submissions folder is unchanged (hashes before and after).
With ``--roster`` and ``--lms canvas|moodle|gradescope`` it also writes
``OUT/<lms>.csv``, one row per roster student; ``--student s01[,s02]``
grades only those again and rewrites the tables from all results, every
LMS file already in OUT included (the guide/grade_book.md, "The grade book").  A folder
from ``make collect`` (``collected.csv``) also gets ``OUT/canvas-feedback.zip``
or ``OUT/moodle-feedback.zip``, the HTML pages named for the LMS's bulk upload.
A folder none of whose notebooks is what the run grades (an assignment's
without ``--assignment``) is refused before anything is graded.  What
the sandbox is and is not: the guide/grading.md, "Teaching with this book".

The package, one module per stage (``tools/grade.py`` is its entry point):

* :mod:`grader.common`  - paths, limits, sizes, and text made safe (``bounded``);
* :mod:`grader.find`    - the student editions, which edition a submission is, the plan of its run;
* :mod:`grader.sandbox` - bubblewrap and cgroups: one sealed kernel per student, one host user per kernel slot;
* :mod:`grader.syscalls` - the seccomp filter of every sandboxed process (Docker's default profile, tighter);
* :mod:`grader.kernel`  - the grader's end of the kernel: cells, requests, replies as data;
* :mod:`grader.wire`, :mod:`grader.agent` - plain data on both sides, and what runs in the kernel;
* :mod:`grader.judge`   - the checks of ``lib.checks``, run here on the kernel's plain data;
* :mod:`grader.run`     - one submission from file to result, in its own process;
* :mod:`grader.report`  - the results as trusted data: grades.csv, variants.csv, feedback, summary;
* :mod:`grader.lms`     - the grade book: the roster's students as an LMS's import file (``--lms``);
* :mod:`grader.feedback_html` - ``OUT/feedback/<student>.html``, linked to the web book;
* :mod:`grader.assignment` - an instructor's own homework (``--assignment hw1.md``): its page, public and
  hidden checks, student notebook, and the judging of both checks;
* :mod:`grader.collect` - an LMS's download of the class -> ``<student>.ipynb`` (``make collect``);
* :mod:`grader.upload`  - the feedback pages named for the LMS's bulk upload (from ``collected.csv``);
* :mod:`grader.cli`     - the command line: the whole class.
* :mod:`grader.gradescope` - Gradescope's autograder.zip, and the grading of its one submission
  (``tools/gradescope.py``); :mod:`grader.container` - the boundary where bubblewrap cannot start.
"""
