"""Exercise checks, one function per exercise.

Call a check in the cell after your solution, passing your function (or your
value)::

    lib.checks.bernoulli_mle(bernoulli_mle)

It tests your code on several generated inputs and tells you the first
problem it finds, without showing the reference answer.  The checks live in
one module per chapter (``lib/checks/chNN.py``) and are all available here.

An exercise whose answer is a number has *variants*: its variant cell,
``lib.checks.variant("ex-...", seed=0)``, prints the numbers to use (seed 0 is
the book's; a course hands each student their own seed) and tells the check
which variant to judge (``lib/checks/_variants.py``).
"""

from importlib import import_module
from pkgutil import iter_modules

from ._core import CheckResult
from ._variants import variant

__all__ = ["CheckResult", "variant"]

# Collect every chapter module's checks under ``lib.checks``.
def _collect():
    for info in sorted(iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("ch"):
            module = import_module(f"{__name__}.{info.name}")
            for name in module.__all__:
                globals()[name] = getattr(module, name)
                __all__.append(name)


_collect()
