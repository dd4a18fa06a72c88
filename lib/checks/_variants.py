"""Per-student variants of the exercises whose answer is a number.

A *variant* of an exercise is a seed.  Seed 0 is the book's own numbers: the
HTML book, the executed notebooks and self-study use it.  A course hands each
student their own seed for each variant exercise,

    seed = HMAC-SHA256(course key, student id + NUL + exercise label)  (first 8 bytes, never 0),

so a notebook shows one student's seeds and nothing from which the key or a
classmate's seed could be computed (``seed_for``).  The notebook's variant
cell calls :func:`variant` with that seed: it prints the student's numbers and
records the seed in the running process, so the exercise's self-check judges
the student's own variant without the key.  The grader never runs that cell:
it recomputes the seed from the key and the student id and judges the answer
inside ``with using(exercise, seed):`` (grader/run.py).

Each variant exercise registers, in its chapter's check module, a
:class:`Spec`: the book's parameters, a ``draw(rng)`` that picks new ones and
a ``degenerate(params)`` that names what is wrong with a draw (an answer that
coincides with a typical mistake, a posterior that is 0 or 1, ...).
:func:`params` redraws until a draw is not degenerate, so no seed gives a
degenerate variant; ``tests/test_variants.py`` searches the seed space.
"""

import contextlib
import hashlib
import hmac
import re
import types

import numpy as np

__all__ = ["Spec", "register", "variant", "params", "current_seed", "using", "seed_for", "registered",
           "mistaken_for", "MAX_SEED"]

MAX_SEED = 2**63 - 1  # seeds are 1 .. MAX_SEED; 0 is the book's numbers

# The seed argument of a variant cell as the book writes it: lib.checks.variant("ex-...", seed=N)
VARIANT_CALL = re.compile(r'(lib\.checks\.variant\(\s*"(?P<label>[A-Za-z0-9_-]+)"\s*,\s*seed\s*=\s*)(?P<seed>\d+)(\s*\))')


def unseeded(source):
    """``source`` with every variant cell's seed set to 0: a cell handed out with a student's seed is still
    the edition's cell (the authorship rule, lib/checks/_policy.py; the seed itself is judged apart)."""
    return VARIANT_CALL.sub(lambda m: f"{m.group(1)}0{m.group(4)}", source)
_MAX_DRAWS = 200  # redraws before a generator gives up (the tests show a handful suffice)

_SPECS = {}  # exercise label -> Spec
_SEEDS = {}  # exercise label -> the seed the running process judges (set by `variant` and `using`)


class Spec:
    """How an exercise's numbers vary.

    Parameters
    ----------
    exercise : str
        The exercise's label.
    book : dict
        The parameters of variant 0, the book's own numbers.
    draw : callable
        ``draw(rng) -> dict`` with the same keys as ``book``.
    degenerate : callable
        ``degenerate(params) -> str or None``: why a draw is not a fair
        exercise (None when it is).
    describe : callable
        ``describe(params) -> str``: the numbers as the student reads them.
    answer : callable
        ``answer(params) -> float``: the right answer, unrounded (what the
        check compares with; the tests and the instructor's ``show`` use it).
    tolerance : float
        The check accepts a number within ``tolerance`` of the answer (the
        rounding the statement asks for, and one unit more).  Two variants
        whose answers lie within ``2 * tolerance`` of each other would let one
        student's number pass for the other: the handout keeps them apart.
    """

    def __init__(self, exercise, book, draw, degenerate, describe, answer, tolerance):
        self.exercise, self.book, self.draw = exercise, dict(book), draw
        self.degenerate, self.describe, self.answer = degenerate, describe, answer
        self.tolerance = float(tolerance)

    def first_draw(self, seed):
        """The first draw for ``seed``, before degenerate ones are rejected (for the tests)."""
        return self.draw(np.random.default_rng([int(seed), 0]))

    def params(self, seed):
        """The parameters of variant ``seed``: the book's for 0, else the first non-degenerate draw."""
        seed = _as_seed(seed)
        if seed == 0:
            return dict(self.book)
        for attempt in range(_MAX_DRAWS):
            drawn = self.draw(np.random.default_rng([seed, attempt]))
            if self.degenerate(drawn) is None:
                return drawn
        raise RuntimeError(f"{self.exercise}: no fair variant in {_MAX_DRAWS} draws for seed {seed}")  # pragma: no cover


class Variant(types.SimpleNamespace):
    """A variant's parameters as attributes; it prints them for the student."""

    def __repr__(self):
        spec = _SPECS[self._exercise]
        whose = "the book's numbers" if self._seed == 0 else "your own numbers"
        shown = {k: v for k, v in vars(self).items() if not k.startswith("_")}
        return f"{self._exercise}, variant {self._seed} ({whose}):\n{spec.describe(shown)}"

    __str__ = __repr__


def mistaken_for(right, mistakes, margin=5e-4):
    """Why a draw is degenerate because a typical mistake gives its right answer, or None.

    ``mistakes`` are (value, message) pairs, the values a check recognises as
    mistakes.  One within ``margin`` of ``right`` (more than twice the
    tolerance of every variant check) would pass, and its message would
    never be shown.
    """
    for value, message in mistakes:
        if abs(value - right) < margin:
            return f"a typical mistake gives the right value to 4 decimals ({message[:40]})"
    return None


def register(spec):
    """Add ``spec`` to the variant exercises (chapter check modules call this at import)."""
    if spec.exercise in _SPECS:
        raise ValueError(f"{spec.exercise} has two variant specs")
    problem = spec.degenerate(spec.book)
    if problem is not None:
        raise ValueError(f"{spec.exercise}: the book's own numbers are degenerate ({problem})")
    _SPECS[spec.exercise] = spec
    return spec


def registered():
    """{label: Spec} of every variant exercise."""
    return dict(_SPECS)


def _spec(exercise):
    if exercise not in _SPECS:
        known = ", ".join(sorted(_SPECS)) or "none"
        raise ValueError(f"{exercise!r} is not an exercise with variants (those are: {known})")
    return _SPECS[exercise]


def _as_seed(seed):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a variant seed is a whole number (0 for the book's numbers), got {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a variant seed lies in 0 .. {MAX_SEED}, got {seed}; keep the number you were handed")
    return seed


def params(exercise, seed):
    """The parameters (a dict) of ``exercise``'s variant ``seed``."""
    return _spec(exercise).params(seed)


def variant(exercise, seed=0):
    """Use variant ``seed`` of ``exercise`` from now on, and return its numbers (they print themselves).

    The notebook's variant cell calls this with the seed handed out to the
    student (0 in the book); the exercise's check then judges that variant.
    """
    spec = _spec(exercise)
    seed = _as_seed(seed)
    _SEEDS[exercise] = seed
    return Variant(_exercise=exercise, _seed=seed, **spec.params(seed))


def current_seed(exercise):
    """The seed of ``exercise`` that the running process judges (0 unless set)."""
    return _SEEDS.get(exercise, 0)


def current(exercise):
    """The parameters of the variant of ``exercise`` that the running process judges."""
    return params(exercise, current_seed(exercise))


@contextlib.contextmanager
def using(exercise, seed):
    """Judge variant ``seed`` of ``exercise`` inside the block (the grader's way in)."""
    _spec(exercise)
    seed = _as_seed(seed)
    saved = _SEEDS.get(exercise)
    _SEEDS[exercise] = seed
    try:
        yield
    finally:
        if saved is None:
            _SEEDS.pop(exercise, None)
        else:
            _SEEDS[exercise] = saved


def salt_for(key, student):
    """The salt of ``student``'s check inputs at grading time under the course ``key`` (``_core.salted``):
    HMAC-SHA256 of ``student + NUL + "check-inputs"``, its first 8 bytes as an integer.  A rerun with the
    key draws the same inputs, and without the key no one can know them."""
    if not isinstance(key, (bytes, bytearray)) or len(key) < 16:
        raise ValueError("a course key is at least 16 bytes; make one with `make course-key KEY=course.key`")
    mac = hmac.new(bytes(key), f"{student}\0check-inputs".encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big")


def seed_for(key, student, exercise):
    """The seed of ``student``'s variant of ``exercise`` under the course ``key`` (bytes, at least 16).

    HMAC-SHA256 of ``student + NUL + exercise``, its first 8 bytes as an
    integer modulo MAX_SEED, plus 1 (so never the book's 0).  Without the key
    a seed tells nothing about any other seed.
    """
    if not isinstance(key, (bytes, bytearray)) or len(key) < 16:
        raise ValueError("a course key is at least 16 bytes; make one with `make course-key KEY=course.key`")
    if not isinstance(student, str) or not student or "\0" in student:
        raise ValueError(f"a student id is a non-empty string without NUL, got {student!r}")
    mac = hmac.new(bytes(key), f"{student}\0{exercise}".encode(), hashlib.sha256).digest()
    return 1 + int.from_bytes(mac[:8], "big") % MAX_SEED
