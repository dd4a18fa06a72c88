"""What every stage of the grader shares: where things are, the default limits, text made safe."""

from __future__ import annotations

import argparse
import re
import unicodedata
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"  # the book's readers the grader uses: book.py (sources, config), student.py (editions)
EDITIONS = ROOT / "student"
for _path in (str(ROOT), str(TOOLS)):  # the grading process judges with this checkout's lib
    if _path not in sys.path:
        sys.path.insert(0, _path)

DEFAULTS = {"cell_timeout": 60, "notebook_timeout": 600, "memory": "2GiB", "file_size": "100MiB",
            "tmp_size": "512MiB", "processes": 64, "max_notebook_size": "20MiB", "grader_memory": "6GiB"}
_UNITS = {"": 1, "k": 2**10, "kib": 2**10, "m": 2**20, "mib": 2**20, "g": 2**30, "gib": 2**30}
STATUSES = ("passed", "failed", "not implemented", "not run")
MAX_MESSAGE = 2000


def parse_size(text):
    """'2GiB' -> bytes."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (examples: 2GiB, 512MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def bounded(text, limit=MAX_MESSAGE):
    """A message as the grader stores it: a str, without control characters, at most ``limit`` long."""
    if not isinstance(text, str):
        text = "" if text is None else f"<{type(text).__name__}>"
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"



# Characters shown as escapes, never obeyed: controls, format characters (bidi overrides, zero
# widths), surrogates (bytes of a file name that are not UTF-8), private use, unassigned, line
# and paragraph separators, and every space other than the plain one.
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"}
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def escape(text, limit=MAX_MESSAGE):
    """Student text as one printable line: control characters and newlines shown (``\\n``, ``\\x1b``).

    What a submission says (exception and warning messages, cell ids, names) reaches the terminal
    and the feedback only through this: it can never start a line of its own or move the cursor.
    """
    if not isinstance(text, str):
        text = "" if text is None else f"<{type(text).__name__}>"
    out = []
    for ch in text[: limit * 2]:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif ch != " " and unicodedata.category(ch) in _HIDDEN_CATEGORIES:
            code = ord(ch)
            if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (os.fsdecode's surrogateescape)
                out.append(f"\\x{code - 0xDC00:02x}")
            else:
                out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                           else f"\\U{code:08x}")
        else:
            out.append(ch)
    line = "".join(out)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def fence(text, limit=MAX_MESSAGE):
    """Student text in the feedback (Markdown): escaped to one line, then in a code span, quoted as data."""
    line = escape(text, limit)
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", line)), default=0) + 1)
    return f"{ticks} {line} {ticks}" if line else "(empty)"


def printable_name(name):
    """A file name (str, as os.fsdecode gives it) as the grader names the student: printable, reversible.

    Names that are plain stay as they are; anything else is escaped as :func:`escape` does, so two
    different names never share a printable form.
    """
    return escape(name, limit=10**6)


def csv_cell(text):
    """A cell of grades.csv that a spreadsheet shows as text, never runs as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
