r"""Naive Bayes for text: bag-of-words counts, multinomial and Bernoulli models.

The generative model of the book's naive Bayes section (notation of
``chapters/notation.md``; a document is a vector of word counts
:math:`x = (x_1, \dots, x_V)` over a fixed vocabulary of :math:`V` words):

.. math::

    y \sim \mathrm{Cat}(\pi_1, \dots, \pi_K), \qquad
    p(x \mid y = k) \propto \prod_{j=1}^V \theta_{kj}^{x_j}
    \quad\text{(multinomial)},

or, for the Bernoulli model of word *presence* :math:`b_j = \mathbb 1\{x_j > 0\}`,
:math:`p(b \mid y = k) = \prod_j \vartheta_{kj}^{b_j} (1 - \vartheta_{kj})^{1 - b_j}`.
"Naive" is the assumption that the words are independent given the class.

Fitting is per-class categorical (or Bernoulli) maximum likelihood with
additive smoothing, in closed form (:func:`class_statistics`,
:func:`multinomial_log_probs`, :func:`bernoulli_log_probs`); prediction is
Bayes' rule in log space (:func:`multinomial_log_joint`,
:func:`bernoulli_log_joint`, :func:`log_posterior`).  The estimators
:class:`MultinomialNaiveBayes` and :class:`BernoulliNaiveBayes` follow
scikit-learn's API and agree with ``sklearn.naive_bayes.MultinomialNB`` and
``BernoulliNB`` for the same ``alpha`` (``tests/test_naive_bayes.py``).
:class:`BagOfWords` turns texts into the sparse count matrices they take.

Book: chapters/02_2_naive_bayes_spam.md.
"""

import numbers

import numpy as np
import scipy.sparse
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .datasets import tokenize
from ._validation import check_labels, check_positive_int, check_positive_scalar

__all__ = [
    "build_vocabulary",
    "count_words",
    "BagOfWords",
    "class_statistics",
    "class_log_priors",
    "multinomial_log_probs",
    "bernoulli_log_probs",
    "multinomial_log_joint",
    "bernoulli_log_joint",
    "log_posterior",
    "MultinomialNaiveBayes",
    "BernoulliNaiveBayes",
]


# ------------------------------------------------------------------ helpers --

def _check_documents(documents):
    if isinstance(documents, (str, bytes)):
        raise TypeError(
            "documents must be a list of texts (one str per document), got a single "
            f"{type(documents).__name__}; wrap it in a list: [text]."
        )
    try:
        docs = list(documents)
    except TypeError:
        raise TypeError(
            f"documents must be a list of texts, got an object of type {type(documents).__name__}."
        ) from None
    for i, doc in enumerate(docs):
        if not isinstance(doc, str):
            raise TypeError(
                f"documents must hold str only; document {i} is a {type(doc).__name__}. "
                "Decode bytes with .decode('utf-8') first."
            )
    return docs


def _check_counts_matrix(X, name="X"):
    """A non-negative, finite count matrix as CSR (sparse input) or a float64 array (dense input)."""
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X, dtype=np.float64)
        values = X.data
        if X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"{name} must have at least one row and one column, got shape {X.shape}.")
    else:
        if X is None or isinstance(X, (str, bytes)):
            raise TypeError(f"{name} must be a 2-D array of word counts, got {type(X).__name__}.")
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be a 2-D array of word counts (numbers); turn texts into counts "
                "first, e.g. with lib.naive_bayes.BagOfWords().fit_transform(texts)."
            ) from None
        if X.ndim != 2:
            raise ValueError(
                f"{name} must be 2-dimensional (n_documents, n_words), got shape {X.shape}; "
                "a single document is X.reshape(1, -1)."
            )
        if X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"{name} must have at least one row and one column, got shape {X.shape}.")
        values = X
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values; word counts are finite.")
    if np.any(values < 0):
        raise ValueError(
            f"{name} has negative entries (minimum {values.min():.3g}); naive Bayes for text "
            "needs non-negative word counts."
        )
    return X


def _check_alpha(alpha):
    return check_positive_scalar(alpha, "alpha", allow_zero=True)


def _matmul(X, A):
    """``X @ A`` as a dense ndarray for dense or sparse ``X``."""
    return np.asarray(X @ A)


# ------------------------------------------------------------ bag of words --

def build_vocabulary(documents, min_df=1, max_features=None):
    """The sorted list of words that occur in at least ``min_df`` documents.

    Words are :func:`lib.datasets.tokenize`'s lowercase words.  With
    ``max_features``, only that many words are kept: those that occur in the
    most documents (ties broken alphabetically).

    Parameters
    ----------
    documents : sequence of str
    min_df : int, default 1
        Minimum document frequency.
    max_features : int or None, default None

    Returns
    -------
    list of str
        Alphabetically sorted; word ``vocabulary[j]`` is column ``j`` of
        :func:`count_words`.
    """
    docs = _check_documents(documents)
    min_df = check_positive_int(min_df, "min_df")
    df = {}
    for doc in docs:
        for word in set(tokenize(doc)):
            df[word] = df.get(word, 0) + 1
    words = [w for w, c in df.items() if c >= min_df]
    if max_features is not None:
        max_features = check_positive_int(max_features, "max_features")
        words = sorted(words, key=lambda w: (-df[w], w))[:max_features]
    if not words:
        raise ValueError(
            f"no word occurs in at least min_df={min_df} document(s); lower min_df or pass more documents."
        )
    return sorted(words)


def count_words(documents, vocabulary):
    """Word counts of each document over ``vocabulary``, as a sparse matrix.

    Entry ``(i, j)`` is :math:`x_{ij}`, the number of times word
    ``vocabulary[j]`` occurs in document ``i`` (tokens from
    :func:`lib.datasets.tokenize`).  Words outside the vocabulary are ignored.

    Parameters
    ----------
    documents : sequence of str
    vocabulary : sequence of str
        Distinct words.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_documents, len(vocabulary)), int64
    """
    docs = _check_documents(documents)
    if isinstance(vocabulary, str):
        raise TypeError("vocabulary must be a list of words, got a single string.")
    vocab = list(vocabulary)
    if not vocab or not all(isinstance(w, str) for w in vocab):
        raise TypeError("vocabulary must be a non-empty list of words (str).")
    index = {w: j for j, w in enumerate(vocab)}
    if len(index) != len(vocab):
        raise ValueError("vocabulary lists some words more than once; remove the duplicates.")
    rows, cols = [], []
    for i, doc in enumerate(docs):
        js = [index[t] for t in tokenize(doc) if t in index]
        rows.extend([i] * len(js))
        cols.extend(js)
    data = np.ones(len(rows), dtype=np.int64)
    X = scipy.sparse.csr_matrix((data, (rows, cols)), shape=(len(docs), len(vocab)), dtype=np.int64)
    X.sum_duplicates()
    return X


class BagOfWords(BaseEstimator):
    """Texts -> word-count matrix over a vocabulary learned from training texts.

    A small counterpart of scikit-learn's ``CountVectorizer`` built on
    :func:`build_vocabulary` and :func:`count_words`.

    Parameters
    ----------
    min_df : int, default 1
    max_features : int or None, default None

    Attributes
    ----------
    vocabulary_ : list of str
        Column ``j`` of :meth:`transform` counts ``vocabulary_[j]``.
    """

    def __init__(self, min_df=1, max_features=None):
        self.min_df = min_df
        self.max_features = max_features

    def fit(self, documents, y=None):
        """Learn the vocabulary from ``documents``; return ``self``."""
        self.vocabulary_ = build_vocabulary(documents, self.min_df, self.max_features)
        return self

    def transform(self, documents):
        """Counts of the vocabulary's words, a CSR matrix of shape (n_documents, V)."""
        check_is_fitted(self, "vocabulary_")
        return count_words(documents, self.vocabulary_)

    def fit_transform(self, documents, y=None):
        return self.fit(documents).transform(documents)

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self, "vocabulary_")
        return np.array(self.vocabulary_, dtype=object)


# --------------------------------------------------------- the pure steps --

def class_statistics(X, y_index, n_classes):
    r"""Sufficient statistics of naive Bayes: documents and word counts per class.

    .. math::

        n_k = \sum_i \mathbb 1\{y_i = k\}, \qquad
        N_{kj} = \sum_{i : y_i = k} x_{ij}.

    Pass word counts for the multinomial model (:math:`N_{kj}` is how often
    word :math:`j` occurs in class :math:`k`) and presence indicators
    ``X > 0`` for the Bernoulli model (:math:`N_{kj}` is then the number of
    documents of class :math:`k` that contain word :math:`j`).

    Book: chapters/02_2_naive_bayes_spam.md, eq. label ``mle-nb-mle``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_documents, V)
    y_index : array of int of shape (n_documents,)
        Class indices in ``0, ..., n_classes - 1``.
    n_classes : int

    Returns
    -------
    class_count : ndarray of shape (n_classes,)
        :math:`n_k`.
    feature_count : ndarray of shape (n_classes, V)
        :math:`N_{kj}`.
    """
    X = _check_counts_matrix(X)
    n_classes = check_positive_int(n_classes, "n_classes")
    y_index = np.asarray(y_index)
    if y_index.shape != (X.shape[0],) or y_index.dtype.kind not in "iu":
        raise ValueError(f"y_index must be a 1-D integer array with one entry per row of X ({X.shape[0]}).")
    if y_index.size and (y_index.min() < 0 or y_index.max() >= n_classes):
        raise ValueError(f"y_index must hold class indices 0, ..., {n_classes - 1}.")
    onehot = np.zeros((X.shape[0], n_classes))
    onehot[np.arange(X.shape[0]), y_index] = 1.0  # (n, K)
    class_count = onehot.sum(axis=0)
    feature_count = _matmul(X.T, onehot).T  # (K, V): sum of the rows of each class
    return class_count, np.ascontiguousarray(feature_count)


def class_log_priors(class_count):
    r"""Log of the MLE class priors :math:`\ln\hat\pi_k = \ln(n_k / n)`.

    Chapter 2's categorical MLE applied to the labels.

    Book: chapters/02_2_naive_bayes_spam.md, eq. label ``mle-nb-mle``.
    """
    count = np.asarray(class_count, dtype=np.float64)
    if count.ndim != 1 or np.any(count < 0) or count.sum() <= 0:
        raise ValueError("class_count must be a 1-D array of non-negative counts with a positive total.")
    with np.errstate(divide="ignore"):
        return np.log(count) - np.log(count.sum())


def multinomial_log_probs(feature_count, alpha=1.0):
    r"""Smoothed log word probabilities of the multinomial model, one row per class.

    .. math::

        \ln\hat\theta_{kj}^{(\alpha)} = \ln\frac{N_{kj} + \alpha}{N_k + \alpha V},
        \qquad N_k = \sum_{j=1}^V N_{kj}.

    Each row is chapter 2's smoothed categorical MLE for the words of one
    class; ``alpha=0`` gives the MLE :math:`N_{kj} / N_k` (with
    :math:`\ln 0 = -\infty` for a word never seen in class :math:`k`).

    Book: chapters/02_2_naive_bayes_spam.md, eq. labels ``mle-nb-mle`` and
    ``mle-nb-smoothed``; chapters/02_maximum_likelihood.md, eq. labels
    ``mle-categorical`` and ``mle-categorical-smoothed``.

    Parameters
    ----------
    feature_count : array-like of shape (n_classes, V)
        :math:`N_{kj}` from :func:`class_statistics` (word counts).
    alpha : float >= 0, default 1.0
        Pseudo-count added to every word of every class.

    Returns
    -------
    log_probs : ndarray of shape (n_classes, V)
        Each row's exponentials sum to 1.
    """
    count = np.asarray(feature_count, dtype=np.float64)
    alpha = _check_alpha(alpha)
    if count.ndim != 2 or np.any(count < 0) or not np.all(np.isfinite(count)):
        raise ValueError("feature_count must be a 2-D array (n_classes, V) of non-negative finite counts.")
    smoothed = count + alpha  # N_kj + alpha
    total = smoothed.sum(axis=1, keepdims=True)  # N_k + alpha V
    if np.any(total <= 0):
        raise ValueError(
            "a class has no words at all and alpha = 0, so its word distribution is undefined (0/0); "
            "use alpha > 0 or drop the empty class."
        )
    with np.errstate(divide="ignore"):
        return np.log(smoothed) - np.log(total)


def bernoulli_log_probs(feature_count, class_count, alpha=1.0):
    r"""Smoothed log probabilities that each word is present, one row per class.

    .. math::

        \ln\hat\vartheta_{kj}^{(\alpha)} = \ln\frac{D_{kj} + \alpha}{n_k + 2\alpha},

    where :math:`D_{kj}` is the number of documents of class :math:`k` that
    contain word :math:`j` and :math:`n_k` the number of documents of class
    :math:`k`: chapter 2's Bernoulli MLE per class and word, smoothed with
    :math:`\alpha` pseudo-documents on each side (present and absent).

    Book: chapters/02_2_naive_bayes_spam.md, eq. label ``mle-nb-bernoulli``;
    chapters/02_maximum_likelihood.md, eq. label ``mle-bernoulli``.

    Parameters
    ----------
    feature_count : array-like of shape (n_classes, V)
        :math:`D_{kj}` (from :func:`class_statistics` on ``X > 0``).
    class_count : array-like of shape (n_classes,)
        :math:`n_k`.
    alpha : float >= 0, default 1.0

    Returns
    -------
    log_probs : ndarray of shape (n_classes, V)
    """
    count = np.asarray(feature_count, dtype=np.float64)
    n_k = np.asarray(class_count, dtype=np.float64)
    alpha = _check_alpha(alpha)
    if count.ndim != 2 or n_k.shape != (count.shape[0],):
        raise ValueError("feature_count must have shape (n_classes, V) and class_count shape (n_classes,).")
    if np.any(count < 0) or np.any(count > n_k[:, None]):
        raise ValueError("document counts must lie between 0 and the number of documents of their class.")
    denominator = n_k[:, None] + 2.0 * alpha
    if np.any(denominator <= 0):
        raise ValueError("a class has no documents and alpha = 0: use alpha > 0 or drop the empty class.")
    with np.errstate(divide="ignore"):
        return np.log(count + alpha) - np.log(denominator)


def _product_with_neginf(X, log_probs):
    """``X @ log_probs.T`` with ``0 * (-inf) = 0``: a word that is absent does not count."""
    neginf = np.isneginf(log_probs)
    out = _matmul(X, np.where(neginf, 0.0, log_probs).T)  # (n, K)
    if neginf.any():
        impossible = _matmul(X, neginf.T.astype(np.float64)) > 0
        out[impossible] = -np.inf
    return out


def multinomial_log_joint(X, log_priors, log_probs):
    r"""Log joint scores of the multinomial model, :math:`a_k(x_i)`.

    .. math::

        a_k(x) = \ln\pi_k + \sum_{j=1}^V x_j \ln\theta_{kj}
        = \ln p(x, y = k) + \text{const}(x),

    a sum of logarithms, never a product of probabilities (which underflows
    to 0 for a document of a few hundred words).  The constant is the
    multinomial coefficient, the same for every class.  A word with
    :math:`x_j = 0` contributes 0 even where :math:`\ln\theta_{kj} = -\infty`.

    Book: chapters/02_2_naive_bayes_spam.md, eq. label ``mle-nb-log-joint``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_documents, V)
        Word counts.
    log_priors : array-like of shape (n_classes,)
    log_probs : array-like of shape (n_classes, V)

    Returns
    -------
    ndarray of shape (n_documents, n_classes)
    """
    X = _check_counts_matrix(X)
    log_priors, log_probs = _check_log_parameters(log_priors, log_probs, X.shape[1])
    return _product_with_neginf(X, log_probs) + log_priors


def bernoulli_log_joint(X, log_priors, log_probs, binarize=0.0):
    r"""Log joint scores of the Bernoulli model on word presence :math:`b_j = \mathbb 1\{x_j > \text{binarize}\}`.

    .. math::

        a_k(x) = \ln\pi_k + \sum_{j=1}^V \bigl[b_j \ln\vartheta_{kj} + (1 - b_j)\ln(1 - \vartheta_{kj})\bigr].

    Unlike the multinomial model, every *absent* word of the vocabulary
    contributes too.

    Book: chapters/02_2_naive_bayes_spam.md, eq. label ``mle-nb-bernoulli``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_documents, V)
    log_priors : array-like of shape (n_classes,)
    log_probs : array-like of shape (n_classes, V)
        :math:`\ln\vartheta_{kj}` from :func:`bernoulli_log_probs`.
    binarize : float, default 0.0
        A word counts as present when its count exceeds this threshold.

    Returns
    -------
    ndarray of shape (n_documents, n_classes)
    """
    X = _check_counts_matrix(X)
    log_priors, log_probs = _check_log_parameters(log_priors, log_probs, X.shape[1])
    B = (X > binarize).astype(np.float64)
    with np.errstate(divide="ignore"):
        log_absent = np.log1p(-np.exp(log_probs))  # ln(1 - vartheta_kj)
    present = _product_with_neginf(B, log_probs)
    # sum over absent words = sum over all words - sum over present words
    neginf = np.isneginf(log_absent)
    finite_absent = np.where(neginf, 0.0, log_absent)
    absent = finite_absent.sum(axis=1) - _matmul(B, finite_absent.T)
    if neginf.any():
        n_impossible = neginf.sum(axis=1) - _matmul(B, neginf.T.astype(np.float64))
        absent[n_impossible > 0] = -np.inf
    return present + absent + log_priors


def _check_log_parameters(log_priors, log_probs, n_features):
    log_priors = np.asarray(log_priors, dtype=np.float64)
    log_probs = np.asarray(log_probs, dtype=np.float64)
    if log_probs.ndim != 2 or log_priors.shape != (log_probs.shape[0],):
        raise ValueError(
            f"log_probs must have shape (n_classes, V) and log_priors shape (n_classes,); got "
            f"{log_probs.shape} and {log_priors.shape}."
        )
    if log_probs.shape[1] != n_features:
        raise ValueError(
            f"X has {n_features} columns (words) but log_probs has {log_probs.shape[1]}; "
            "count the documents over the vocabulary the model was fitted on."
        )
    if np.any(np.isnan(log_probs)) or np.any(log_probs > 0) or np.any(log_priors > 0):
        raise ValueError("log_priors and log_probs must be logarithms of probabilities (<= 0, no NaN).")
    return log_priors, log_probs


def log_posterior(log_joint):
    r"""Log posterior class probabilities from log joint scores.

    .. math::

        \ln p(y = k \mid x) = a_k(x) - \ln\sum_{l=1}^K e^{a_l(x)},

    with the normaliser computed by ``logsumexp`` (shift by the largest
    score), so that scores of :math:`-5000` do not underflow.  A row whose
    scores are all :math:`-\infty` (the document is impossible under every
    class, which only happens without smoothing) gives NaN.

    Book: chapters/02_2_naive_bayes_spam.md, eq. label ``mle-nb-log-posterior``.

    Parameters
    ----------
    log_joint : array-like of shape (n_documents, n_classes)

    Returns
    -------
    ndarray of shape (n_documents, n_classes)
    """
    s = np.asarray(log_joint, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(f"log_joint must be 2-D (n_documents, n_classes), got shape {s.shape}.")
    with np.errstate(invalid="ignore"):  # rows of -inf only: NaN, without a warning
        return s - logsumexp(s, axis=1, keepdims=True)  # a_k(x) - ln sum_l exp(a_l(x))


# ------------------------------------------------------------- estimators --

class _BaseNaiveBayes(ClassifierMixin, BaseEstimator):

    def _set_counts(self, classes, class_count, feature_count, n_features):
        """The fitted bookkeeping both models share; returns self."""
        self.classes_ = classes
        self.class_count_ = class_count
        self.feature_count_ = feature_count
        self.priors_ = class_count / class_count.sum()  # the class-prior MLE
        self.n_features_in_ = n_features
        return self

    def _check_fit_data(self, X, y):
        X = _check_counts_matrix(X)
        classes, y_index = check_labels(y, X.shape[0], "y", min_classes=2)
        return X, classes, y_index

    def _check_predict_X(self, X):
        check_is_fitted(self, "log_probs_")
        X = _check_counts_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features (words), but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input (the vocabulary it was fitted on)."
            )
        return X

    def predict_joint_log_proba(self, X):
        r"""Log joint scores :math:`a_k(x_i) = \ln p(x_i, y = k)` up to a constant per document."""
        return self._joint(self._check_predict_X(X))

    def predict_log_proba(self, X):
        r"""Log posteriors :math:`\ln p(y = k \mid x_i)`, shape ``(n_samples, n_classes)``."""
        return log_posterior(self.predict_joint_log_proba(X))

    def predict_proba(self, X):
        r"""Posteriors :math:`p(y = k \mid x_i)`, shape ``(n_samples, n_classes)``."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class ``classes_[argmax_k a_k(x_i)]``."""
        joint = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(joint, axis=1)]


class MultinomialNaiveBayes(_BaseNaiveBayes):
    r"""Multinomial naive Bayes with additive smoothing (word counts).

    Priors :math:`\hat\pi_k = n_k / n`; word probabilities
    :math:`\hat\theta_{kj} = (N_{kj} + \alpha) / (N_k + \alpha V)`
    (:func:`multinomial_log_probs`); predictions by :func:`log_posterior`.
    Same results as ``sklearn.naive_bayes.MultinomialNB(alpha=alpha)``.

    Book: chapters/02_2_naive_bayes_spam.md, eq. labels ``mle-nb-smoothed``
    and ``mle-nb-log-posterior``.

    Parameters
    ----------
    alpha : float >= 0, default 1.0
        Pseudo-count; 1 is Laplace smoothing, 0 the MLE.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        :math:`n_k`.
    feature_count_ : ndarray of shape (n_classes, n_features)
        :math:`N_{kj}`.
    priors_ : ndarray of shape (n_classes,)
        :math:`\hat\pi_k`.
    log_probs_ : ndarray of shape (n_classes, n_features)
        :math:`\ln\hat\theta_{kj}`.
    n_features_in_ : int
    """

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        """Count, then smooth; return ``self``."""
        alpha = _check_alpha(self.alpha)
        X, classes, y_index = self._check_fit_data(X, y)
        class_count, feature_count = class_statistics(X, y_index, classes.shape[0])
        self.log_probs_ = multinomial_log_probs(feature_count, alpha)
        return self._set_counts(classes, class_count, feature_count, X.shape[1])

    def _joint(self, X):
        return multinomial_log_joint(X, np.log(self.priors_), self.log_probs_)


class BernoulliNaiveBayes(_BaseNaiveBayes):
    r"""Bernoulli naive Bayes with additive smoothing (word presence).

    Priors :math:`\hat\pi_k = n_k / n`; presence probabilities
    :math:`\hat\vartheta_{kj} = (D_{kj} + \alpha) / (n_k + 2\alpha)`
    (:func:`bernoulli_log_probs`); scores by :func:`bernoulli_log_joint`.
    Same results as ``sklearn.naive_bayes.BernoulliNB(alpha=alpha, binarize=binarize)``.

    Book: chapters/02_2_naive_bayes_spam.md, eq. label ``mle-nb-bernoulli``.

    Parameters
    ----------
    alpha : float >= 0, default 1.0
    binarize : float, default 0.0
        A word is present when its count exceeds ``binarize``.

    Attributes
    ----------
    classes_, class_count_, priors_, n_features_in_
        As in :class:`MultinomialNaiveBayes`.
    feature_count_ : ndarray of shape (n_classes, n_features)
        :math:`D_{kj}`, documents of class :math:`k` containing word :math:`j`.
    log_probs_ : ndarray of shape (n_classes, n_features)
        :math:`\ln\hat\vartheta_{kj}`.
    """

    def __init__(self, alpha=1.0, binarize=0.0):
        self.alpha = alpha
        self.binarize = binarize

    def fit(self, X, y):
        """Count documents containing each word, then smooth; return ``self``."""
        alpha = _check_alpha(self.alpha)
        if isinstance(self.binarize, bool) or not isinstance(self.binarize, numbers.Real):
            raise TypeError(f"binarize must be a number, got {type(self.binarize).__name__}.")
        X, classes, y_index = self._check_fit_data(X, y)
        B = (X > self.binarize).astype(np.float64)
        class_count, feature_count = class_statistics(B, y_index, classes.shape[0])
        self.log_probs_ = bernoulli_log_probs(feature_count, class_count, alpha)
        return self._set_counts(classes, class_count, feature_count, X.shape[1])

    def _joint(self, X):
        return bernoulli_log_joint(X, np.log(self.priors_), self.log_probs_, self.binarize)
