"""One meaning per symbol: a symbol that chapters/notation.md assigns to one meaning
is not used on a page with another meaning.

FORBIDDEN lists (page glob, regular expression, reason): the expression must not occur
in the MyST sources matched by the glob.  The reason says which symbol the page uses
instead, so a failure tells the author what to write.  Each chapter has its own block.
"""

import re
from pathlib import Path

import pytest

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"

FORBIDDEN = [
    # ---- book-wide ----
    ("0[1-4]*.md", r"\\nu_0", "the (inverse-)Wishart degrees of freedom are kappa (kappa_0), not nu_0; "
                              "nu is a Lagrange multiplier"),
    # ---- chapter 1 ----
    # ---- chapter 2 ----
    # ---- chapter 3 ----
    ("03_[134]_*.md", r"\\lambda", "lambda is only the l2 penalty strength; Fisher's eigenvalues are xi_j, "
                                     "sample eigenvalues hat tau_j"),
    ("03_gaussian*.md", r"\\lambda", "lambda is only the l2 penalty strength"),
    ("03*.md", r"\\alpha", "alpha is a Dirichlet concentration; the Ledoit-Wolf shrinkage intensity is omega"),
    ("03*.md", r"\\(?:var)?phi(?![a-zA-Z])", "phi is the standard normal density only; chapter 3 has no "
                                              "unnormalised weights phi_k or prior phi"),
    ("03*.md", r"\\Lambda", "Lambda is the precision of chapter 5's Gaussian target; chapter 3 writes Sigma^{-1}"),
    ("03_[234]_*.md", r"\\delta", "delta_k(x) is 03_1's discriminant function only; the Ledoit-Wolf dispersion "
                                     "is zeta^2 and Kronecker deltas are written out"),
    ("03*.md", r"\$m\$|\bm I\b", "m is neither a training-set size (n) nor the Ledoit-Wolf average variance "
                                   "(sigma_bar^2) in chapter 3"),
    ("03*.md", r"\bq_[01k]\b", "q is a distribution over latent variables (chapters 4-5); the squared "
                                 "Mahalanobis distance is Delta_k^2"),
    ("03*.md", r"\bv_[0-9jl]\b", "v_j is a CAVI variance (chapter 5); Fisher's directions are f_j"),
    # ---- chapter 4 ----
    # ---- chapter 5 ----
]


def _cases():
    for glob, pattern, reason in FORBIDDEN:
        for path in sorted(CHAPTERS.glob(glob)):
            yield pytest.param(path, pattern, reason, id=f"{path.stem}:{pattern}")


def test_every_rule_matches_some_page():
    for glob, _, _ in FORBIDDEN:
        assert sorted(CHAPTERS.glob(glob)), f"the glob {glob!r} matches no page"


@pytest.mark.parametrize("path, pattern, reason", list(_cases()))
def test_symbol_has_one_meaning(path, pattern, reason):
    text = path.read_text(encoding="utf-8")
    hits = [text.count("\n", 0, m.start()) + 1 for m in re.finditer(pattern, text)]
    assert not hits, f"{path.name} lines {hits}: {reason}"
