"""What every stage of the grader shares: where things are, the default limits, text made safe."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1]
ROOT = TOOLS.parent
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

