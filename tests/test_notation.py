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
    # ---- chapter 4 ----
    ("04*.md", r"G\(Q|\$G\$|\bG_trace|G\\bigl\(", "EM's lower bound is \\mathcal L(q, theta) in chapters 4 and 5, not G(Q, theta)"),
    ("04*.md", r"Q_\{i|Q_i\b|Q\^\{\(t|\\mathcal Q\b", "a distribution over the latent labels is a lower-case q (q_i, q_{ik}, q^{(t)}); "
                                                  "the capital Q is Dempster's Q(theta | theta^(t))"),
    ("04*.md", r"\bL_(true|trace|iter|ex|new|fixed)\b|(?<!mathcal )\bL = |\bL\(true|final L\b|\bL before", "the log-likelihood is ell in text and printouts, not L"),
    ("04*.md", r"\\lambda", "lambda is the l2 penalty only; chapter 4's Lagrange multiplier is nu"),
    ("04*.md", r"\\phi|\\varphi", "phi is the standard normal density only; mixing weights are pi_k"),
    ("04*.md", r"\\nu\b[^\n]{0,40}degrees of freedom|prior_dof=\\nu", "the inverse-Wishart degrees of freedom are kappa"),
    ("04*.md", r"\\rho\b", "rho is a correlation only"),
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
