"""Judge: the checks of ``lib.checks`` run here, in the grading process, on the kernel's plain data."""

from __future__ import annotations

import time

from grader.common import STATUSES, bounded
from grader.kernel import CheckAborted, InvalidReply, KernelFunction


def policy(fn):
    """What an answer to ``fn``'s exercise may call: the check's allow-list as plain data
    (``lib.checks._core.policy_of``), which the agent applies in the kernel around every call.

    The one place the grader reads a check's policy: the agent receives what this returns.
    """
    from lib.checks import _core

    return _core.policy_of(fn)


SALT_RETRIES = 2  # other salted inputs for a check whose own code raised on the first ones


def run_check(check, runner, fn=None):
    """(status, message) of one check, judged in this process; ``fn``: the check (default: lib.checks')."""
    import lib.checks
    from lib.checks import _core

    name, arg_names, kwarg_names = check["call"]
    fn = fn or getattr(lib.checks, name)
    allowed = policy(fn)  # applied in the kernel (agent.py), as in the student's own check cell
    runner.deadline = time.monotonic() + runner.limits["cell_timeout"]
    try:
        values = {}
        for student_name in [*arg_names, *kwarg_names.values()]:
            kind, value = runner.describe(student_name)
            if kind == "missing":
                return "failed", (f"name '{student_name}' is not defined: the check could not find your answer; "
                                  "run the cells that define it, and keep its name.")
            values[student_name] = KernelFunction(runner, student_name, allowed) if kind == "function" else value
        result = fn(*[values[n] for n in arg_names], **{k: values[n] for k, n in kwarg_names.items()})
        salt = _core._SALT.get()
        for attempt in range(1, SALT_RETRIES + 1):
            # A check whose own code raised on the salted inputs (a draw it cannot take, never a verdict on
            # the answer) runs again on other inputs the submission cannot know either.
            if salt is None or type(result) is not _core.CheckResult or not result.crashed:
                break
            with _core.salted((salt + attempt) % 2**63):
                result = fn(*[values[n] for n in arg_names], **{k: values[n] for k, n in kwarg_names.items()})
    except CheckAborted as stop:
        if stop.timed_out:
            return "failed", bounded(stop.reason)
        return "not run", bounded(f"{stop.reason} during this check (see the note).")
    except InvalidReply as exc:
        return "failed", bounded(str(exc))
    finally:
        runner.deadline = None
    if type(result) is not _core.CheckResult or result.status not in STATUSES:
        return "failed", "the check did not return a result."
    if result.status == "not implemented":  # the check's own words ("run that cell again") are for Jupyter
        return result.status, NOT_IMPLEMENTED
    return result.status, bounded(result.message)


# What the feedback says of a starter handed in unchanged: the notebook is graded as handed in, so there
# is no cell to run again, only an answer to write.
NOT_IMPLEMENTED = ("not implemented yet: in the notebook handed in, the starter of this exercise still raises "
                   "NotImplementedError (or holds `...`). Write your answer in it, check it with the check cell, "
                   "and hand the notebook in again.")



def authorship(code, check, position, fn=None):
    """[lib.checks._policy.Problem] of one exercise, judged from the submission's code (grader/source.py):
    what its answer reaches, and the code before its check that the grader cannot read (issue 49).

    ``code``: the submission's :class:`grader.source.Code`; ``position``: how many of its code cells run
    before the check.  Nothing of the student's runs here: the decision is made from the text alone.
    """
    import lib.checks
    from lib.checks import _policy

    name, arg_names, kwarg_names = check["call"]
    fn = fn or getattr(lib.checks, name)
    return _policy.problems(code, position, [*arg_names, *kwarg_names.values()], getattr(fn, "allow", ()))


def with_authorship(status, message, found):
    """(status, message) of an exercise once its authorship problems ``found`` are known: 0 with them."""
    if not found:
        return status, message
    from lib.checks import _policy

    said = _policy.message(found)
    return "failed", bounded(said if status == "passed" else f"{message} Also: {said}")


VERDICTS = ("own", "other", "book", "changed")  # of a variant cell, as the results record it


def variant_decisions(nb, edition, variants):
    """{exercise: (expected seed, verdict, owner)} for the variant exercises of ``edition``.

    ``variants`` is {"mine": {exercise: seed}, "owners": {exercise: {seed: student}}, "keyed": bool};
    the notebook's seeds are read from its cells, never run (grader.find.notebook_seeds).
    """
    from lib.checks import _variants

    from grader.find import notebook_seeds

    found = notebook_seeds(nb)
    out = {}
    for check in edition["checks"]:
        label = check["exercise"]
        if label not in _variants.registered():
            continue
        expected = variants["mine"].get(label, 0)
        seen = found.get(label, expected if not variants["keyed"] else None)
        if seen == expected:
            out[label] = (expected, "own", None)
        elif seen is not None and seen in variants["owners"].get(label, {}):
            out[label] = (expected, "other", variants["owners"][label][seen])
        elif seen == 0:
            out[label] = (expected, "book", None)
        else:
            out[label] = (expected, "changed", None)
    return out


def variant_message(label, verdict, owner, keyed):
    """What the student reads for a variant exercise graded 0 because of its variant cell."""
    if verdict == "other":
        return (f"the variant cell of {label} holds the seed handed out to {owner}, not yours: this notebook's "
                "numbers are another student's. 0 points for this exercise.")
    if verdict == "book":
        return (f"the variant cell of {label} holds seed 0, the book's numbers, not the seed handed out to you. "
                "0 points for this exercise.")
    if keyed:
        return (f"the variant cell of {label} is missing or its seed is not the one handed out to you; keep the "
                "cell as handed out. 0 points for this exercise.")
    return (f"the variant cell of {label} holds a seed other than 0, and the grader was run without the course "
            "key, so it judges the book's numbers (variant 0). 0 points for this exercise.")


