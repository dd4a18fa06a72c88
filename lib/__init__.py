"""Companion library of the executable textbook *Generative Models*.

Every chapter of the book builds a method from scratch in a few lines of
numpy and then switches to the tested implementation here.  Symbols follow
the book's notation page (``chapters/notation.md``): the mixing weights
:math:`\\pi_k` are ``weights[k]``, the means :math:`\\mu_k` are ``means[k]``,
the covariances :math:`\\Sigma_k` are ``covariances[k]`` and the
responsibilities :math:`\\gamma_{ik}` are ``resp[i, k]``.

Submodules are imported on first use, so ``import lib`` stays cheap and
``lib.mixture`` works without a separate import::

    import lib
    gmm = lib.mixture.GaussianMixture(n_components=2, random_state=0)
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version as _dist_version

try:
    __version__ = _dist_version("genmodels-lib")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

#: The public submodules, one per model (plus data, plots and exercise checks).
SUBMODULES = (
    "gaussian",
    "mle",
    "logistic",
    "discriminant",
    "naive_bayes",
    "mixture",
    "em_theory",
    "online_em",
    "bernoulli_mixture",
    "variational",
    "bayesian_mixture",
    "datasets",
    "plotting",
    "checks",
)

__all__ = ["__version__", "glue", *SUBMODULES]


def glue(name, text):
    """Make ``text``, a number as the page prints it, available to the page's prose.

    The prose writes ``{glue:text}`name``` where it quotes the number, so the
    sentence and the output cannot drift apart (CONTRIBUTING.md, "Numbers in
    prose").  ``text`` must be a string (format the number first:
    ``f"{acc:.3f}"``), so that what is stored is what the page prints and the
    same at one and two BLAS threads.  Where myst-nb is installed (the book's
    build) this is ``myst_nb.glue(name, text, display=False)``; elsewhere (Colab,
    a student's kernel) it does nothing: the student edition's prose already
    holds the text.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"glue name must be a non-empty string, got {name!r}")
    if not isinstance(text, str):
        raise TypeError(f"glue {name!r}: text must be a string as the page prints it (e.g. f\"{{value:.3f}}\"), "
                        f"got {type(text).__name__}; a raw float would store all its digits")
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        return
    myst_glue(name, text, display=False)


def __getattr__(name):
    # PEP 562: load a submodule the first time ``lib.<name>`` is looked up.
    if name in SUBMODULES:
        module = import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'lib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(SUBMODULES))
