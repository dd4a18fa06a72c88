"""An instructor's own homework (issue 39): ``hw1.md`` with ``checks.py`` and ``hidden_checks.py`` beside it.

The one home of what an assignment is: :func:`load` reads the page (a MyST notebook in the book's exercise
format), imports its public and hidden checks *in this, the trusted, process*, and refuses bad input with
an :class:`AssignmentError` that says what to fix, before anything is written.  From it come

* :func:`student_notebook`: statements, starters, variant and check cells, and the public checks carried
  in one cell (so the check cells work on Colab or Binder with that file alone); no solution, nothing of
  ``hidden_checks.py``; held to the book's validation of student editions (``tools/student.py``);
* :func:`key_notebook`: the same with the solutions in the starters' place (:func:`build`
  executes it and fails unless every public and hidden check passes);
* :func:`editions`: the grader's view of it (``python -m grader grade --assignment``), and
  :func:`judge`: an exercise earns its points only when its public *and* its hidden check pass, both
  run here on the kernel's plain data as the book's checks are (``grader.judge.run_check``).

The sandbox never sees the assignment's folder (``grader.grade`` hides it by path, should it lie inside a
folder the sandbox binds); the feedback gives a hidden check's message with the text a submission put
in an exception removed, so no answer can carry the hidden inputs out.

The command line (``make assignment SRC=path/to/hw1.md``) builds it:

    python -m grader assignment path/to/hw1.md [--out path/to/build]

writes, under ``path/to/build/`` (or ``--out``), ``hw1.ipynb``, the student notebook (with the set-up
cell that installs ``lib``: PyPI's release, or else the wheel on the book's site), and ``hw1.key.ipynb``,
the answer key, executed: each solution in its starter's place.  The key is executed first, in a kernel
of its own in a temporary folder, with every public and every hidden check run after its check cell:
unless all pass, nothing is written and the message names the check.  Hand the student notebook out as
it is, or with per-student variants (``make handout ROSTER=... KEY=... ASSIGNMENT=path/to/hw1.md``);
grade with ``make grade SUBMISSIONS=dir ASSIGNMENT=path/to/hw1.md``.

To run ``hw1.md`` itself in Jupyter while writing it (Jupytext opens it as a notebook), put the line
``import checks`` in a code cell above the first check cell: ``checks.py`` lies beside the page.  Both
notebooks leave that line out; there the cell that carries the public checks defines ``checks``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import re
import sys
import tempfile
import types
from pathlib import Path

from grader import common  # noqa: F401 - puts tools/ (book, student) and the checkout's lib on sys.path

MODULE = "checks"  # a check cell of an assignment calls checks.<name>(...)
CARRIER = "assignment-checks"  # the id and tag of the cell that carries the public checks
DIRECTIVE = re.compile(r"^[ \t]*(?P<fence>`{3,}|:{3,})\{(?P<name>exercise-start|exercise-end|solution-start|"
                       r"solution-end)\}[ \t]*(?P<arg>[^\n]*)$")
OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):[ \t]*(?P<value>[^\n]*)$")


class AssignmentError(Exception):
    """Bad input: the message says what is wrong and where, and how to fix it."""


class Assignment(types.SimpleNamespace):
    """What :func:`load` found: ``md``, ``name``, ``title``, ``exercises`` (label -> dict, in page order),
    ``cells`` (the page's cells as parsed), ``public`` and ``hidden`` (modules), ``variants`` (labels)."""


# ------------------------------------------------------------------ loading --

_REGISTERED = {}  # checks.py path -> the variant labels it registered (loading it again replaces them)


def _import(path, kind):
    """Import ``path`` as a module of its own (never through sys.path, never cached under a plain name)."""
    from lib.checks import _variants

    for label in _REGISTERED.pop(str(path), ()):  # this file's own specs, from an earlier load
        _variants._SPECS.pop(label, None)
    before = set(_variants.registered())
    name = f"gm_assignment_{kind}_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any error of the instructor's file is reported as one
        raise AssignmentError(f"{path}: importing it failed ({type(exc).__name__}: {exc}); fix the file.") from None
    finally:
        _REGISTERED[str(path)] = sorted(set(_variants.registered()) - before)
    return module


def _checks_of(module):
    """{name: check} of the module's functions decorated with lib.checks' ``@check`` (they have ``exercise``)."""
    return {name: fn for name, fn in vars(module).items()
            if callable(fn) and isinstance(getattr(fn, "exercise", None), str) and not name.startswith("_")}


def _directives(text):
    """The Markdown ``text`` as pieces: ("text", line) or ("directive", name, argument, {option: value})."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        match = DIRECTIVE.match(lines[i])
        if not match:
            out.append(("text", lines[i]))
            i += 1
            continue
        fence, options, i = match["fence"], {}, i + 1
        while i < len(lines) and not re.fullmatch(rf"[ \t]*{re.escape(fence)}[ \t]*", lines[i]):
            option = OPTION.match(lines[i])
            if option:
                options[option["key"]] = option["value"].strip()
            i += 1
        out.append(("directive", match["name"], match["arg"].strip(), options))
        i += 1
    return out


def parse_call(source, where):
    """``checks.name(a, b=c)`` -> ("name", ["a"], {"b": "c"}) (grader.find.parse_check), or AssignmentError."""
    from grader.find import parse_check

    try:
        return parse_check(source, where, module=MODULE)
    except (ValueError, SyntaxError) as exc:
        raise AssignmentError(f"{exc} (an assignment's check cell is one call `checks.<name>(answer)`).") from None


def load(md):
    """Read and check the assignment ``md``: an :class:`Assignment`, or :class:`AssignmentError`."""
    import book

    md = Path(md).resolve()
    if md.suffix != ".md" or not md.is_file():
        raise AssignmentError(f"{md}: no such page; an assignment is a MyST notebook `hw1.md`.")
    folder = md.parent
    if not (folder / "checks.py").is_file():
        raise AssignmentError(f"{folder / 'checks.py'} is missing: write the public checks of {md.name} there "
                              "(@check from lib.checks._core), one per exercise.")
    try:
        nb = book.read_source(md)
    except Exception as exc:  # noqa: BLE001 - jupytext's message says where
        raise AssignmentError(f"{md}: not a MyST notebook ({type(exc).__name__}: {exc}).") from None
    public = _import(folder / "checks.py", "public")
    variants = list(_REGISTERED.get(str(folder / "checks.py"), []))
    hidden = _import(folder / "hidden_checks.py", "hidden") if (folder / "hidden_checks.py").is_file() else None
    if hidden is not None and _REGISTERED.get(str(folder / "hidden_checks.py")):
        raise AssignmentError(f"{folder / 'hidden_checks.py'} registers a variant Spec: register each variant "
                              "once, in checks.py (the student notebook carries it).")
    checks = _checks_of(public)
    exercises, label, in_solution, title = {}, None, None, None
    for cell in nb.cells:
        where = f"{md.name}, cell {cell.id}"
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            for piece in _directives(cell.source):
                if piece[0] == "text":
                    if title is None and piece[1].startswith("# "):
                        title = piece[1][2:].strip()
                    continue
                _, name, arg, options = piece
                if name == "exercise-start":
                    label = options.get("label")
                    if not label:
                        raise AssignmentError(f"{where}: an exercise-start block without a `:label:`; give each "
                                              "exercise a label such as `:label: ex-hw1-mle`.")
                    if label in exercises:
                        raise AssignmentError(f"{where}: the label {label} is used by two exercises.")
                    try:
                        points = int(options.get("points", 1))
                    except ValueError:
                        raise AssignmentError(f"{where}: `:points:` of {label} is not a whole number.") from None
                    exercises[label] = {"label": label, "title": arg, "points": points, "starters": [],
                                        "solutions": [], "check": None}
                elif name == "exercise-end":
                    pass
                elif name == "solution-start":
                    if arg not in exercises:
                        raise AssignmentError(f"{where}: solution-start names {arg or 'no exercise'}, not an "
                                              "exercise above it.")
                    in_solution = arg
                else:
                    in_solution = None
            continue
        if "solution" in tags or in_solution:
            owner = in_solution or label
            if owner is None:
                raise AssignmentError(f"{where}: a solution cell before any exercise.")
            exercises[owner]["solutions"].append(cell.source)
        elif "starter" in tags:
            if label is None:
                raise AssignmentError(f"{where}: a starter cell before any exercise-start block.")
            exercises[label]["starters"].append(cell.id)
        elif "check" in tags:
            if label is None:
                raise AssignmentError(f"{where}: a check cell before any exercise-start block.")
            name, args, kwargs = parse_call(cell.source, cell.id)
            if name not in checks:
                raise AssignmentError(f"{where}: the check cell of {label} calls checks.{name}, which names no "
                                      f"check of checks.py (its checks: {', '.join(sorted(checks)) or 'none'}).")
            if checks[name].exercise != label:
                raise AssignmentError(f"{where}: checks.{name} checks {checks[name].exercise}, but this check "
                                      f"cell follows exercise {label}.")
            if exercises[label]["check"]:
                raise AssignmentError(f"{where}: exercise {label} has two check cells; keep one.")
            exercises[label]["check"] = {"id": cell.id, "name": name, "args": args, "kwargs": kwargs}
        elif "variant" in tags:
            from lib.checks._variants import VARIANT_CALL  # what the handout personalises (grader/variants.py)

            used_labels = [m["label"] for m in VARIANT_CALL.finditer(cell.source)]
            if not used_labels:
                raise AssignmentError(f'{where}: a variant cell is `name = lib.checks.variant("ex-...", seed=0)`, '
                                      "as the book writes it (the handout replaces the seed).")
            for used in used_labels:
                if used not in variants:
                    raise AssignmentError(f"{where}: the variant cell calls lib.checks.variant({used!r}), but "
                                          "checks.py registers no Spec for that label.")
    if not exercises:
        raise AssignmentError(f"{md.name}: no exercise-start block: an assignment has at least one exercise.")
    for label, ex in exercises.items():
        if not ex["starters"]:
            raise AssignmentError(f"{md.name}: exercise {label} has no starter cell (a code cell tagged "
                                  "`starter` inside its exercise-start ... exercise-end block).")
        if not ex["check"]:
            raise AssignmentError(f"{md.name}: exercise {label} has no check cell (a code cell tagged `check` "
                                  "that calls checks.<name>(answer)).")
        if not ex["solutions"]:
            raise AssignmentError(f"{md.name}: exercise {label} has no solution (cells tagged `solution` in "
                                  "a solution-start block): the answer key could not be checked.")
    secret = {}
    for name, fn in (_checks_of(hidden) if hidden else {}).items():
        if fn.exercise not in exercises:
            raise AssignmentError(f"hidden_checks.py: {name} checks {fn.exercise}, a label {md.name} does not "
                                  f"have (its exercises: {', '.join(exercises)}).")
        if fn.exercise in secret:
            first = secret[fn.exercise].__name__
            raise AssignmentError(f"hidden_checks.py: two hidden checks for {fn.exercise} ({first} and {name}); "
                                  "merge them.")
        secret[fn.exercise] = fn
    for label in variants:
        if label not in exercises:
            raise AssignmentError(f"checks.py registers a variant Spec for {label}, a label {md.name} does not "
                                  "have.")
    return Assignment(md=md, name=md.stem, title=title or md.stem, exercises=exercises, cells=nb.cells,
                      public=public, public_checks=checks, hidden=secret, variants=variants,
                      public_source=(folder / "checks.py").read_text())


# ---------------------------------------------------------------- notebooks --

HOWTO = """> **Homework**: *{title}*. Run the cells in order from the top. The first code cell installs the \
companion library `lib` on Colab or Binder (it does nothing where `lib` is already installed); the next \
one holds the public checks of this homework: run it, and leave it as it is.
>
> For each exercise: edit the **starter cell** (replace `raise NotImplementedError` or the `...` with your \
code) and run it, then run the **check cell** that follows (`checks.<name>(...)`): it prints `[PASSED]` \
with what was checked, `[NOT YET]` with the first problem it found, or `[TO DO]` while the starter is \
unchanged. The grader runs these checks and more cases of its own: a pass here is good evidence, not the \
grade."""
VARIANTS = """
>
> **Your numbers.** An exercise whose answer is a number starts with a **variant cell**, \
`lib.checks.variant("ex-...", seed=...)`, that prints the numbers to use. If your course handed you this \
notebook, the seed is yours: leave the cell as it is."""


def without_checks_import(source):
    """``source`` without its top-level ``import checks`` statements.

    That line lets the instructor run ``hw1.md`` in Jupyter beside ``checks.py``; the notebooks built from
    the page leave it out, because there the carrier cell defines ``checks`` (the student's folder has no
    checks.py, and the answer key runs in a folder of its own).  Anything else in the cell stays.
    """
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return source
    drop = set()
    for node in body:
        if isinstance(node, ast.Import) and [(a.name, a.asname) for a in node.names] == [(MODULE, None)]:
            drop.update(range(node.lineno, node.end_lineno + 1))
    if not drop:
        return source
    return "\n".join(line for i, line in enumerate(source.split("\n"), 1) if i not in drop).strip("\n")


def _carrier(assignment):
    """The cell that defines ``checks``: checks.py, run as a module of its own (its names never clash)."""
    source = assignment.public_source
    literal = f"r'''{source}'''"  # readable; repr where a raw string cannot hold the file
    try:
        readable = ast.literal_eval(literal) == source
    except (SyntaxError, ValueError):
        readable = False
    literal = literal if readable else repr(source)
    again = ", ".join(repr(label) for label in assignment.variants)
    reset = (f"for _label in ({again},):  # registered again when this cell runs again\n"
             "    _variants._SPECS.pop(_label, None)\n") if assignment.variants else ""
    return ("# The public checks of this homework (its checks.py): the check cells call them.\n"
            "# Leave this cell as it is; the grader uses the instructor's own copy.\n"
            "import types\n"
            "from lib.checks import _variants\n"
            + reset +
            "checks = types.ModuleType(\"checks\")\n"
            f"exec(compile({literal}, \"checks.py\", \"exec\"), checks.__dict__)\n")


def _cells(assignment, with_solutions):
    """The notebook's cells (nbformat): the student notebook, or with the solutions the answer key."""
    import book
    import nbformat

    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    has_variants = bool(assignment.variants)
    out = [new_md(HOWTO.format(title=assignment.title) + (VARIANTS if has_variants else ""), id="student-edition")]
    setup = [new_code(book.bootstrap_source(assignment.md).strip(), id="assignment-setup",
                      metadata={"tags": ["bootstrap"]}),
             new_code(_carrier(assignment).strip(), id=CARRIER, metadata={"tags": [CARRIER]})]
    label, in_solution, number = None, None, 0
    starters_done = set()
    for cell in assignment.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            text = []
            for piece in _directives(cell.source):
                if piece[0] == "text":
                    if not in_solution:
                        text.append(piece[1])
                    continue
                _, name, arg, options = piece
                if name == "exercise-start":
                    label, number = options["label"], number + 1
                    points = assignment.exercises[label]["points"]
                    text.append(f"### Exercise {number} ({arg})" if arg else f"### Exercise {number}")
                    text.append("")
                    text.append(f"*{points} point{'s' if points != 1 else ''}.*")
                elif name == "solution-start":
                    in_solution = arg
                elif name == "solution-end":
                    in_solution = None
            body = "\n".join(line.rstrip() for line in "\n".join(text).strip("\n").split("\n"))
            if body.strip():
                out.append(new_md(body, id=cell.id))
            if setup and body.lstrip().startswith("# "):  # the set-up cells follow the title
                out += setup
                setup = []
            continue
        if "bootstrap" in tags or "solution" in tags or in_solution:
            continue
        source = without_checks_import(cell.source)
        if not source.strip():
            continue  # the page's own `import checks` alone
        if setup:
            out += setup
            setup = []
        new = new_code(source, id=cell.id)
        new.metadata = {k: v for k, v in cell.metadata.items()}
        if "starter" in tags and with_solutions:
            if label in starters_done:
                continue  # all of the exercise's solution went into its first starter
            starters_done.add(label)
            new.source = "\n\n".join(assignment.exercises[label]["solutions"])
        if "check" in tags:
            new.metadata["exercise"] = label
            new.metadata["points"] = assignment.exercises[label]["points"]
        out.append(new)
    return out + setup


def _notebook(assignment, with_solutions):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = _cells(assignment, with_solutions)
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"},
                   "genmodels": {"page": assignment.name, "assignment": True}}
    return nb


def student_notebook(assignment):
    """The student notebook (nbformat, not executed), held to the student editions' validation."""
    import student

    nb = _notebook(assignment, with_solutions=False)
    problems = student.problems(nb)
    if problems:
        raise AssignmentError(f"{assignment.md.name}: the student notebook would not be one: "
                              + "; ".join(problems[:5]) + " (an assignment's Markdown is plain Markdown with "
                              "$...$ math, no raw MyST: no roles, labels or directives other than the exercise and "
                              "solution blocks).")
    return nb


def key_notebook(assignment):
    """The answer key (nbformat, not executed): each exercise's solution cells in its starter's place."""
    return _notebook(assignment, with_solutions=True)


# ------------------------------------------------------------------ grading --

def editions(md):
    """{page: edition} as grader.find.load_editions gives the book's, for the assignment ``md``."""
    from grader.find import edition_of

    assignment = load(md)
    edition = edition_of(student_notebook(assignment), assignment.md, module=MODULE)
    edition["assignment"] = assignment
    return {assignment.name: edition}


_STUDENT_TEXT = re.compile(r"(?P<head>.*? raised an exception: )(?P<name>[\w.]+)(?::.*?)?"
                           r"(?P<tail>\. Run it on a small input in a cell of its own to debug it\.)$", re.S)
# A check's words around what the kernel said: the name the answer called (a Delegation, which an
# answer can forge with a home-made exception and a .name of its choosing), a reply that was not data.
_CALLED = re.compile(r"^(?P<what>your function calls|your answer is) `[^`]*`(?P<itself> itself)?;", re.S)
_KERNEL_SAID = re.compile(r"^(?P<head>your function's value could not be read as data|the grader's call failed "
                          r"in your kernel|the kernel's reply was not an exception): .*$", re.S)
SHOWN_EXCEPTIONS = frozenset(
    [n for n, c in vars(__import__("builtins")).items() if isinstance(c, type) and issubclass(c, BaseException)]
    + ["LinAlgError"])


def hidden_message(message):
    """A hidden check's message as the feedback shows it: nothing of what the student's code produced.

    The hidden check has handed the answer its inputs, which the answer can carry out in anything the
    grader quotes: the text of an exception (removed), its type (shown only when it is one of Python's
    own or NumPy's LinAlgError, else "an exception"), the name a forged ``Delegation`` says it called
    (removed), the text of a reply that was not data (removed). The check's own words stay.
    """
    match = _STUDENT_TEXT.fullmatch(message)
    if match:
        name = match["name"] if match["name"] in SHOWN_EXCEPTIONS else "an exception"
        return f"{match['head']}{name}{match['tail']}"
    if (match := _CALLED.match(message)) is not None:
        what = "your answer is a function" if match["what"] == "your answer is" else "your function calls a function"
        return f"{what} this exercise does not allow;{message[match.end():]}"
    if (match := _KERNEL_SAID.fullmatch(message)) is not None:
        return f"{match['head']}."
    return message


PUBLIC_FAILED = "public check: "
HIDDEN_PASSED = " Hidden check: passed."
HIDDEN_NOT_RUN = "public check passed; hidden check: "
HIDDEN_FAILED = "the public check passed, the hidden check did not: "
HIDDEN_FAILED_END = " (the hidden check tries cases of its own, which the feedback does not show)."


def judge_public(check, runner, edition):
    """(status, message) of an assignment's exercise at its check cell: its public check only.

    The hidden checks run after the notebook's last cell (:func:`judge_hidden`, grader/run.py): once a
    hidden check has handed the student's code its inputs, no cell of the student's runs again.
    """
    from grader.judge import run_check

    status, message = run_check(check, runner, fn=edition["assignment"].public_checks[check["call"][0]])
    return status, (message if status == "passed" else f"{PUBLIC_FAILED}{message}")


def judge_hidden(check, runner, edition, message):
    """(status, message) of an exercise whose public check passed (its ``message``): its hidden check too.

    Its message goes through :func:`hidden_message`: nothing the student's code produced reaches the
    feedback, and ``None`` when the exercise has no hidden check.
    """
    from grader.judge import run_check

    hidden = edition["assignment"].hidden.get(check["exercise"])
    if hidden is None:
        return None
    secret_status, secret = run_check(check, runner, fn=hidden)
    if secret_status == "passed":
        return "passed", f"{message}{HIDDEN_PASSED}"
    if secret_status == "not run":
        return secret_status, f"{HIDDEN_NOT_RUN}{hidden_message(secret)}"
    return "failed", f"{HIDDEN_FAILED}{hidden_message(secret)}{HIDDEN_FAILED_END}"


def judge(check, runner, edition):
    """(status, message) of one exercise of an assignment: its public check, then its hidden check at once
    (grader/run.py defers the hidden ones to the end of the notebook instead)."""
    status, message = judge_public(check, runner, edition)
    if status != "passed":
        return status, message
    return judge_hidden(check, runner, edition, message) or (status, message)


def split_message(status, message):
    """((status, message) of the public check, (status, message) of the hidden one) of an exercise that has
    a hidden check, from what :func:`judge_public` and :func:`judge_hidden` (or grader/run.py, when no check
    ran) recorded: Gradescope shows them as two tests (grader/gradescope.py)."""
    if message.startswith(PUBLIC_FAILED):
        return (status, message[len(PUBLIC_FAILED):]), ("not run", "the public check did not pass.")
    if status == "passed" and message.endswith(HIDDEN_PASSED):
        return ("passed", message[: -len(HIDDEN_PASSED)]), ("passed", "passed.")
    if message.startswith(HIDDEN_NOT_RUN):
        return ("passed", "passed."), (status, message[len(HIDDEN_NOT_RUN):])
    if message.startswith(HIDDEN_FAILED):
        return ("passed", "passed."), (status, message[len(HIDDEN_FAILED):])
    return (status, message), (status, message)  # nothing ran (a dead kernel, a variant cell): both say why


# ------------------------------------------------------------- building --

MARK = "GM-VERIFY "


def _verify_cells(hw):
    """{check cell id: cell} that run the exercise's public and hidden checks and print their results."""
    import nbformat

    loader = ("import importlib.util as _gm_util, json as _gm_json\n"
              "def _gm_report(label, kind, result):\n"
              f"    print({MARK!r} + _gm_json.dumps([label, kind, result.status, result.message]))\n")
    hidden = hw.md.parent / "hidden_checks.py"
    if hw.hidden:
        loader += (f"_gm_spec = _gm_util.spec_from_file_location('gm_hidden_checks', {str(hidden)!r})\n"
                   "_gm_hidden = _gm_util.module_from_spec(_gm_spec)\n"
                   "_gm_spec.loader.exec_module(_gm_hidden)\n")
    cells = {CARRIER: nbformat.v4.new_code_cell(loader, id="verify-loader")}
    for label, ex in hw.exercises.items():
        check = ex["check"]
        args = ", ".join([*check["args"], *(f"{k}={v}" for k, v in check["kwargs"].items())])
        source = f"_gm_report({label!r}, 'public', checks.{check['name']}({args}))\n"
        if label in hw.hidden:
            source += f"_gm_report({label!r}, 'hidden', _gm_hidden.{hw.hidden[label].__name__}({args}))\n"
        cells[check["id"]] = nbformat.v4.new_code_cell(source, id=f"verify-{check['id']}")
    return cells


def execute_key(hw, timeout=600):
    """The answer key, executed; AssignmentError naming the first check it does not pass."""
    import nbclient
    import nbformat

    key = key_notebook(hw)
    extra = _verify_cells(hw)
    run = nbformat.v4.new_notebook(metadata=key.metadata)
    for cell in key.cells:
        run.cells.append(cell)
        if cell.get("id") in extra:
            run.cells.append(extra[cell.id])
    with tempfile.TemporaryDirectory(prefix="gm-answer-key-") as where:
        client = nbclient.NotebookClient(run, timeout=timeout, kernel_name="python3",
                                         resources={"metadata": {"path": where}})
        try:
            client.execute()
        except nbclient.exceptions.CellExecutionError as exc:
            raise AssignmentError(f"{hw.md.name}: the answer key stopped with an error: "
                                  f"{str(exc).strip().splitlines()[-1]}") from None
    results = {}
    for cell in run.cells:
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines() if output.get("name") == "stdout" else []:
                if line.startswith(MARK):
                    label, kind, status, message = json.loads(line[len(MARK):])
                    results[(label, kind)] = (status, message)
    for label, ex in hw.exercises.items():
        for kind in ("public", "hidden") if label in hw.hidden else ("public",):
            status, message = results.get((label, kind), ("not run", "the check did not report"))
            if status != "passed":
                name = f"checks.{ex['check']['name']}" if kind == "public" else \
                    f"hidden_checks.{hw.hidden[label].__name__}"
                raise AssignmentError(f"{hw.md.name}: the solution of {label} fails its {kind} check {name}: "
                                      f"{message}")
    key.cells = [c for c in run.cells if not c.get("id", "").startswith("verify-")]
    for cell in key.cells:  # the same bytes at every build of the same page
        cell.metadata.pop("execution", None)
    return key


def build(src, out=None):
    """Check ``src``, execute its key, then write the two notebooks; returns their paths."""
    import nbformat

    hw = load(src)
    student = student_notebook(hw)
    key = execute_key(hw)
    out = Path(out) if out else hw.md.parent / "build"
    out.mkdir(parents=True, exist_ok=True)
    paths = out / f"{hw.name}.ipynb", out / f"{hw.name}.key.ipynb"
    nbformat.write(student, paths[0])
    nbformat.write(key, paths[1])
    return hw, paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", type=Path, help="the assignment's page, path/to/hw1.md")
    parser.add_argument("--out", type=Path, help="output folder (default: build/ beside the page)")
    args = parser.parse_args(argv)
    try:
        hw, (student, key) = build(args.src, args.out)
    except AssignmentError as exc:
        print(f"assignment: {exc}\nNothing was written.", file=sys.stderr)
        return 2
    hidden = sum(label in hw.hidden for label in hw.exercises)
    print(f"{len(hw.exercises)} exercise(s), {hidden} with a hidden check"
          + (f", {len(hw.variants)} with variants" if hw.variants else "") + ": every solution passes "
          f"every check.\nstudent notebook: {student}\nanswer key (keep it private): {key}")
    return 0

