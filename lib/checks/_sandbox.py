"""``lib.checks`` as the grading sandbox shows it: the variant cells' numbers, and nothing a check knows.

The grader runs every check in its own process (grader/run.py), so the
student's kernel needs only two things of ``lib.checks``: ``variant`` (the
variant cells print the numbers handed out) and ``_core`` (the tripwires that
apply a check's allow-list to each call of the answer).  :func:`write_edition`
writes a package with exactly those into a folder that the sandbox mounts over
``lib/checks``: no check module, no reference, no constant of a check, no
``Spec.answer`` is present in the sandbox, so no cell can read an answer
there.  The variants' numbers are precomputed here, on the trusted side, for
the seeds the grader expects (the book's 0 and the student's own).
"""

import json
import shutil
from pathlib import Path

from . import _variants

STUB = '''\
"""lib.checks while the grader runs a notebook: the variant cells work, the checks run in the grader.

Written by lib/checks/_sandbox.py.  Nothing a check knows (references,
answers, constants) is in this sandbox.
"""

import json as _json
import os as _os
import types as _types

__all__ = ["variant"]

with open(_os.path.join(_os.path.dirname(__file__), "variants.json")) as _fh:
    _TABLE = _json.load(_fh)


class Variant(_types.SimpleNamespace):
    """A variant's parameters as attributes; it prints them for the student."""

    def __repr__(self):
        return _TABLE[self._exercise][str(self._seed)]["text"]

    __str__ = __repr__


def variant(exercise, seed=0):
    """The numbers of variant ``seed`` of ``exercise`` (only the seeds handed out to this student)."""
    known = _TABLE.get(exercise)
    if known is None:
        raise ValueError(f"{exercise!r} is not an exercise with variants")
    entry = known.get(str(seed)) if isinstance(seed, int) and not isinstance(seed, bool) else None
    if entry is None:
        raise ValueError(f"variant {seed!r} of {exercise} is not the one handed out to you: keep the seed "
                         "of your handout (or 0, the book's numbers)")
    return Variant(_exercise=exercise, _seed=seed, **entry["params"])


def __getattr__(name):
    raise AttributeError(f"lib.checks.{name} is not available while the grader runs your notebook: "
                         "the grader runs the checks itself, in its own process")
'''


def _plain(value):
    """A variant parameter as JSON data (NumPy scalars and arrays become numbers and lists)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def write_edition(folder, seeds):
    """Write the sandbox's ``lib.checks`` into ``folder``; ``seeds`` is {exercise label: [seeds]}."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = {}
    for label, wanted in seeds.items():
        spec = _variants.registered().get(label)
        if spec is None:
            continue
        for seed in sorted({s for s in wanted if isinstance(s, int) and not isinstance(s, bool)}):
            try:
                params = spec.params(seed)
            except (TypeError, ValueError):  # not a seed at all: the variant cell will say so
                continue
            text = repr(_variants.Variant(_exercise=label, _seed=seed, **params))
            table.setdefault(label, {})[str(seed)] = {"params": {k: _plain(v) for k, v in params.items()},
                                                      "text": text}
    (folder / "__init__.py").write_text(STUB)
    shutil.copyfile(Path(__file__).with_name("_core.py"), folder / "_core.py")
    (folder / "variants.json").write_text(json.dumps(table))
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # readable by the sandbox's user
    return folder
