"""Collect a class's submissions from an LMS's download (the entry point of ``make collect``).

    python tools/collect.py --from download.zip --roster roster.csv --lms canvas --out submissions
    make collect FROM=download.zip ROSTER=roster.csv LMS=canvas|moodle|gradescope OUT=submissions

What it reads and writes: tools/grader/collect.py; the guide/grade_book.md, "The grade book".
"""

import argparse
import sys
from pathlib import Path

_TOOLS = str(Path(__file__).resolve().parent)
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

from grader import collect  # noqa: E402
from grader.common import DEFAULTS, parse_size  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=collect.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, required=True,
                        help="the LMS's download: the zip file, or the folder it was unpacked into")
    parser.add_argument("--roster", type=Path, required=True, help="the roster (CSV, `student` column and the "
                                                                    "LMS's ids: lms_id, moodle_participant, email)")
    parser.add_argument("--lms", choices=collect.FORMATS, required=True, help="the LMS that made the download")
    parser.add_argument("--out", type=Path, required=True, help="a new folder: <student>.ipynb and collected.csv")
    parser.add_argument("--max-notebook-size", type=parse_size, default=parse_size(DEFAULTS["max_notebook_size"]),
                        help="larger notebooks are not collected (default 20MiB, the grader's limit)")
    args = parser.parse_args(argv)
    import variants

    try:
        rows = variants.read_roster_rows(args.roster)
    except variants.UsageError as exc:
        parser.error(str(exc))
    if not args.source.exists():
        parser.error(f"{args.source}: no such file or folder")
    if args.source.resolve() == args.out.resolve() or args.source.resolve() in args.out.resolve().parents:
        parser.error("the output folder must not be inside the download")
    try:
        lines = collect.collect(args.source, rows, args.lms, args.out, args.max_notebook_size)
    except collect.CollectError as exc:
        print(f"collect.py: {exc} Nothing was written.", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
