"""Answers for the authorship rule (issue 49): evasions that must earn 0, honest alternatives that must pass.

Each evasion is one cell of a student's notebook (or, as a list, several cells) that hands an exercise
``lib``'s, SciPy's or scikit-learn's code by a route other than a plain call: the first trial of the
issue (the profiler switched off, a callable instance whose ``__call__`` is lib's function, a thread,
a clone of lib's code under another file name, the tripwires' cache poisoned, their stop frame moved),
and every route the static rule has to follow (aliases, containers, defaults, class attributes,
``functools.partial``, decorators, a function applied to a library function, dynamic code, names made at
run time, a module's attribute assigned...).  ``{fn}`` is the exercise's function name, ``{args}`` its
parameters, ``{lib}`` the dotted name of lib's own implementation (the check's ``solves``).

``EVASIONS`` are written for any function exercise; ``ALTERNATIVES`` are correct answers to the three
exercises of chapter 2's first page, written differently from the book's (loops, helpers, lambdas,
``np.einsum``, early returns, classes), run through the real checks by the tests.
"""

# label -> cells (a string or a list of strings); {fn}, {args}, {lib} filled per exercise
EVASIONS = {
    # --- the first trial of the issue: the run-time tripwires switched off or walked around
    "profiler-off": "import sys\n\ndef {fn}({args}):\n    sys.setprofile(None)\n    return {lib}({args})\n",
    "own-profiler": "import sys\n\ndef {fn}({args}):\n    sys.setprofile(lambda *a: None)\n    return {lib}({args})\n",
    "callable-instance": "class Answer:\n    __call__ = staticmethod({lib})\n\n{fn} = Answer()\n",
    "thread": ("from concurrent.futures import ThreadPoolExecutor\n\ndef {fn}({args}):\n"
               "    with ThreadPoolExecutor(1) as pool:\n        return pool.submit({lib}, {args}).result()\n"),
    "threading": ("import threading\n\ndef {fn}({args}):\n    out = []\n"
                  "    t = threading.Thread(target=lambda: out.append({lib}({args})))\n    t.start()\n    t.join()\n"
                  "    return out[0]\n"),
    "clone": ("import types\n\n_src = {lib}\n{fn} = types.FunctionType(_src.__code__.replace(co_filename='<mine>'), "
              "_src.__globals__)\n"),
    "cache-poison": ("def {fn}({args}):\n    return 0\n\n{fn}.__code__ = {lib}.__code__.replace(co_filename='<cell>')\n"),
    "getprofile-stop": ("import sys\n\ndef {fn}({args}):\n    wires = sys.getprofile()\n"
                        "    return {lib}({args})\n"),
    # --- routes through names
    "direct": "def {fn}({args}):\n    return {lib}({args})\n",
    "alias": "shortcut = {lib}\n\ndef {fn}({args}):\n    return shortcut({args})\n",
    "assigned": "{fn} = {lib}\n",
    "import-alias": "from {lib_module} import {lib_name} as mine\n\ndef {fn}({args}):\n    return mine({args})\n",
    "star-import": "from {lib_module} import *\n",  # binds {fn} itself over the starter
    "local-import": "def {fn}({args}):\n    from {lib_module} import {lib_name}\n    return {lib_name}({args})\n",
    "wrapper": "def helper(*a):\n    return {lib}(*a)\n\ndef {fn}({args}):\n    return helper({args})\n",
    "container": "table = {{'answer': {lib}}}\n\ndef {fn}({args}):\n    return table['answer']({args})\n",
    "list-append": "tools = []\ntools.append({lib})\n\ndef {fn}({args}):\n    return tools[0]({args})\n",
    "default-arg": "def {fn}({args}, _f={lib}):\n    return _f({args})\n",
    "class-attribute": ("class Solver:\n    method = staticmethod({lib})\n\ndef {fn}({args}):\n"
                        "    return Solver.method({args})\n"),
    "partial": "import functools\n\n{fn} = functools.partial({lib})\n",
    "decorator": ("def use(g):\n    return lambda f: g\n\n@use({lib})\ndef {fn}({args}):\n    return 0\n"),
    "applied": "def wrap(g):\n    return lambda *a: g(*a)\n\n{fn} = wrap({lib})\n",
    "vectorize": "{fn} = np.vectorize({lib}, otypes=[float], signature='(n)->()')\n",
    "alias-store": ["class Answer:\n    pass\n\nsame = Answer\nsame.__call__ = staticmethod({lib})\n{fn} = Answer()\n"],
    "list-store": ["class Answer:\n    pass\n\nbox = [Answer]\nbox[0].__call__ = staticmethod({lib})\n{fn} = Answer()\n"],
    "global-rebind": ["def setup():\n    global {fn}\n    {fn} = {lib}\n",
                      "def {fn}({args}):\n    return 0\n\nsetup()\n"],
    "two-cells": ["shortcut = {lib}\n", "def {fn}({args}):\n    return shortcut({args})\n"],
    # --- code the grader cannot read
    "exec": "exec('{fn} = {lib}')\n",
    "eval": "{fn} = eval('{lib}')\n",
    "getattr-computed": ("name = 'bernoulli' + '_mle'\n\ndef {fn}({args}):\n"
                         "    return getattr(lib.mle, name)({args})\n"),
    "importlib": "import importlib\n\n{fn} = getattr(importlib.import_module('{lib_module}'), '{lib_name}')\n",
    "dunder-import": "{fn} = __import__('{lib_module}', fromlist=['x']).{lib_name}\n",
    "globals": "globals()['{fn}'] = {lib}\n",
    "vars": "vars()['{fn}'] = {lib}\n",
    "module-attribute": "np.mean = {lib}\n\ndef {fn}({args}):\n    return np.mean({args})\n",
    "setattr-module": "setattr(np, 'mean', {lib})\n\ndef {fn}({args}):\n    return np.mean({args})\n",
    "subclasses": ("def {fn}({args}):\n    return [c for c in object.__subclasses__() if c.__name__ == 'x']\n"),
    "gc": "import gc\n\ndef {fn}({args}):\n    return 0\n",
    "inspect": "import inspect\n\ndef {fn}({args}):\n    return 0\n",
    "subprocess": "import subprocess\n\ndef {fn}({args}):\n    return 0\n",
    "os-system": "import os\n\nos.system('true')\n\ndef {fn}({args}):\n    return 0\n",
    "shell": "!true\n\ndef {fn}({args}):\n    return 0\n",
    "magic-run": "%run -i /tmp/answer.py\n",
    "pickle": ("def {fn}({args}):\n    return np.load('/tmp/answer.npy', allow_pickle=True)\n"),
    "get-ipython": "get_ipython().user_ns['{fn}'] = {lib}\n",
}

# exercise label -> (function name, parameter list, lib's implementation) on chapter 2's first page
CH2_EXERCISES = {
    "ex-bernoulli-mle": ("bernoulli_mle", "x", "lib.mle.bernoulli_mle"),
    "ex-bernoulli-log-likelihood": ("bernoulli_log_likelihood", "x, theta", "lib.mle.bernoulli_log_likelihood"),
    "ex-smoothed-categorical-mle": ("smoothed_categorical_mle", "counts, alpha", "lib.mle.smoothed_categorical_mle"),
}


def evasion_cells(label, exercise):
    """The cells of evasion ``label`` aimed at ``exercise`` (a key of :data:`CH2_EXERCISES`)."""
    fn, args, lib = CH2_EXERCISES[exercise]
    module, name = lib.rsplit(".", 1)
    cells = EVASIONS[label]
    cells = [cells] if isinstance(cells, str) else cells
    return [c.format(fn=fn, args=args, lib=lib, lib_module=module, lib_name=name) for c in cells]


# exercise label -> alternatives (each one cell, or a list of cells), every one correct
ALTERNATIVES = {
    "ex-bernoulli-mle": [
        "def bernoulli_mle(x):\n    ones = 0\n    for v in x:\n        if v == 1:\n            ones += 1\n"
        "    return ones / len(x)\n",
        "bernoulli_mle = lambda x: float(np.mean(np.asarray(x, dtype=float)))\n",
        "def count_ones(x):\n    return int(np.count_nonzero(x))\n\n\ndef bernoulli_mle(x):\n"
        "    n = len(x)\n    if n == 0:\n        return 0.0\n    return count_ones(x) / n\n",
        ["class Estimator:\n    def __call__(self, x):\n        x = np.asarray(x, dtype=float)\n"
         "        return float(np.einsum('i->', x) / x.size)\n",
         "bernoulli_mle = Estimator()\n"],
        "import math\nfrom functools import reduce\n\n\ndef bernoulli_mle(x):\n"
        "    return reduce(lambda a, b: a + b, map(float, x), 0.0) / math.fsum(1 for _ in x)\n",
    ],
    "ex-bernoulli-log-likelihood": [
        "import math\n\n\ndef bernoulli_log_likelihood(x, theta):\n    total = 0.0\n    for v in x:\n"
        "        p = theta if v == 1 else 1.0 - theta\n        if p == 0:\n            return -math.inf\n"
        "        total += math.log(p)\n    return total\n",
        "def _xlogy(a, b):\n    return 0.0 if a == 0 else a * np.log(b)\n\n\n"
        "bernoulli_log_likelihood = lambda x, theta: float(_xlogy(np.sum(x), theta) "
        "+ _xlogy(len(x) - np.sum(x), 1 - theta))\n",
        "from scipy.special import xlogy as safe\n\n\ndef bernoulli_log_likelihood(x, theta):\n"
        "    x = np.asarray(x, dtype=float)\n    n1 = np.einsum('i->', x)\n"
        "    return float(safe(n1, theta) + safe(x.size - n1, 1.0 - theta))\n",
    ],
    "ex-smoothed-categorical-mle": [
        "def smoothed_categorical_mle(counts, alpha):\n    total = sum(counts) + alpha * len(counts)\n"
        "    return np.array([(c + alpha) / total for c in counts], dtype=float)\n",
        "def _normalise(v):\n    return v / v.sum()\n\n\nsmoothed_categorical_mle = lambda counts, alpha: "
        "_normalise(np.asarray(counts, dtype=float) + alpha)\n",
        "class Smoother:\n    def __init__(self):\n        self.calls = 0\n\n    def __call__(self, counts, alpha):\n"
        "        self.calls += 1\n        c = np.asarray(counts, dtype=float) + alpha\n"
        "        return c / np.einsum('i->', c)\n\n\nsmoothed_categorical_mle = Smoother()\n",
    ],
}


def refused(path):
    """The exercises the authorship rule gives 0 in the submission at ``path``, read as the grader reads it
    (grader/source.py, grader/judge.authorship): for the tests of other attacks, whose notebooks use code the
    grader cannot read (os, sys, ctypes, a patched module) and so lose the exercises after it."""
    import nbformat
    from grader import find, source
    from grader.judge import authorship

    nb = nbformat.read(path, as_version=4)
    editions = find.load_editions()
    page, problem = find.identify(nb, editions)
    if problem:
        return set()
    edition = editions[page]
    steps, _ = find.plan(nb, edition)
    code = source.read(nb, edition)
    out, ran = set(), 0
    for step in steps:
        if step[0] == "code":
            ran += 1
        elif authorship(code, step[1], ran):
            out.add(step[1]["exercise"])
    return out


def expected_total(row, path, lost=()):
    """A row's total once the exercises in ``lost`` and those the rule refuses (:func:`refused`) are 0."""
    return str(int(row["max"]) - len(set(lost) | refused(path)))
