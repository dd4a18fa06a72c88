"""``python -m grader COMMAND [ARGS]``: one command per module (the list: ``python -m grader --help``)."""

import importlib
import sys
from pathlib import Path

COMMANDS = {  # command -> (module, what it does)
    "grade": ("grader.grade", "grade a folder of homework notebooks (make grade)"),
    "collect": ("grader.collect", "an LMS's download -> a <student>.ipynb per roster student (make collect)"),
    "variants": ("grader.variants", "course key, handout folders, re-rolls (make course-key, make handout)"),
    "assignment": ("grader.assignment", "build an instructor's own homework (make assignment)"),
    "gradescope": ("grader.gradescope", "Gradescope's autograder.zip and its run_autograder (make gradescope)"),
}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in COMMANDS:
        width = max(map(len, COMMANDS))
        lines = [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
        print("usage: python -m grader COMMAND [ARGS] (python -m grader COMMAND --help)\n\ncommands:\n"
              + "\n".join(lines), file=sys.stdout if argv[:1] in (["-h"], ["--help"]) else sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    command, rest = argv[0], argv[1:]
    sys.argv[0] = f"python -m grader {command}"  # argparse's prog, in usage lines and errors
    return importlib.import_module(COMMANDS[command][0]).main(rest)


if __name__ == "__main__":
    if not __package__:  # run by path (python path/to/grader ...): the checkout's top folder has the package,
        here = Path(__file__).resolve().parent  # and the package's own folder is not a place to import from
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
        sys.path.insert(0, str(here.parent))
    sys.exit(main())
