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

__all__ = ["__version__", *SUBMODULES]


def __getattr__(name):
    # PEP 562: load a submodule the first time ``lib.<name>`` is looked up.
    if name in SUBMODULES:
        module = import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'lib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(SUBMODULES))
