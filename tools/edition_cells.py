"""Write lib/checks/_edition_cells.py: the fingerprints of every code cell of the student editions.

    python tools/edition_cells.py [--check]

The student's own check cell judges authorship from the kernel's history (lib.checks._policy.
notebook_problems), where cells carry no id: a cell whose code is one of the editions' is the book's,
any other the student's.  ``make notebooks`` and ``make student`` rewrite the file after the student
notebooks; ``--check`` (tests/test_authorship.py) fails when it is out of date.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.checks._policy import edition_hash  # noqa: E402

TARGET = ROOT / "lib" / "checks" / "_edition_cells.py"


def render(folder=ROOT / "student"):
    hashes = set()
    for path in sorted(Path(folder).glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                hashes.add(edition_hash(source))
    lines = "".join(f'    "{h}",\n' for h in sorted(hashes))
    return ('"""Fingerprints of the student editions\' code cells (written by tools/edition_cells.py; do not edit).\n\n'
            "lib.checks._policy.notebook_problems: a cell of the kernel's history whose fingerprint is here is the\n"
            'book\'s, any other the student\'s."""\n\n'
            f"HASHES = frozenset({{\n{lines}}})\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not TARGET.exists() or TARGET.read_text() != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run `python tools/edition_cells.py`")
            return 1
        return 0
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
