"""Gradescope's autograder from this project's grader (the entry point of ``make gradescope`` and of the
bundle's ``run_autograder``; the work is ``tools/grader/gradescope.py``).

    python tools/gradescope.py build --page 04_em_gaussian_mixtures [--key course.key [--roster roster.csv]]
    python tools/gradescope.py build --assignment path/hw1.md [--key course.key]
    python tools/gradescope.py run [--root /autograder]      (inside the bundle: run_autograder)

The guide/gradescope.md, "Gradescope", says how to upload the bundle and which seal applies inside Gradescope's container.
"""

import sys
from pathlib import Path

_TOOLS = str(Path(__file__).resolve().parent)
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

from grader.gradescope import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
