"""Grade a folder of homework notebooks (the entry point of ``make grade``; the grader is ``tools/grader/``).

    python tools/grade.py SUBMISSIONS [--out OUT] [-j 2] [--chapter PAGE] [--force] [--key KEY [--roster CSV]]
    make grade SUBMISSIONS=dir [KEY=course.key] [ROSTER=roster.csv] [OUT=dir]

``python tools/grade.py --help`` says what it does; the guide/grading.md, "Teaching with this book", says what
its sandbox is and is not.
"""

import sys
from pathlib import Path

_TOOLS = str(Path(__file__).resolve().parent)
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

from grader.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
