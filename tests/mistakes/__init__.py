"""A corpus of student mistakes, one module per chapter (``tests/mistakes/chNN.py``; issue 52).

Each module defines ``CASES``, a list of :class:`Case`: an answer to one exercise written as a student
writes it after reading the page (not derived from the solution), and what its check must say.
``tests/test_student_mistakes.py`` runs every case through the exercise's own check cell.
"""

from typing import NamedTuple, Optional


class Case(NamedTuple):
    """One answer to one exercise.

    exercise : the exercise's label, ``"ex-bernoulli-mle"``.
    check : the dotted name of its check, ``"lib.checks.ch02.bernoulli_mle"``.
    kind : ``"wrong"`` (the check must refuse it) or ``"right"`` (it must pass).
    source : the answer as the student writes it in the exercise's cell: the function the starter names
        (or the variables it assigns), with the imports it needs.
    expect : for a wrong answer, a regular expression the check's message must match (``re.search``,
        case-insensitive): the words that name *this* mistake; None for a right answer.
    """

    exercise: str
    check: str
    kind: str
    source: str
    expect: Optional[str] = None
