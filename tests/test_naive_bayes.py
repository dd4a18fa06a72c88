"""Tests for lib.naive_bayes: scikit-learn agreement, closed forms and properties."""

import numpy as np
import pytest
import scipy.sparse
from scipy.special import logsumexp
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

from lib import datasets
from lib import naive_bayes as nb


def _counts(seed, n=40, V=15, K=3):
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % K)
    rates = rng.gamma(0.5, 2.0, size=(K, V))
    X = rng.poisson(rates[y]).astype(np.int64)
    return X, y


# ------------------------------------------------------------ bag of words --

def test_build_vocabulary_and_counts():
    docs = ["Free money, free!", "money for the meeting", "the meeting is free"]
    vocab = nb.build_vocabulary(docs)
    assert vocab == sorted(["free", "money", "for", "the", "meeting", "is"])
    X = nb.count_words(docs, vocab)
    assert scipy.sparse.issparse(X) and X.shape == (3, 6) and X.dtype == np.int64
    assert X[0, vocab.index("free")] == 2 and X[0, vocab.index("money")] == 1
    assert X.sum() == sum(len(datasets.tokenize(d)) for d in docs)
    assert nb.build_vocabulary(docs, min_df=2) == ["free", "meeting", "money", "the"]
    assert nb.build_vocabulary(docs, max_features=2) == ["free", "meeting"]  # df 2, ties alphabetical
    # words outside the vocabulary are ignored
    assert nb.count_words(["unknown words only"], vocab).nnz == 0


def test_bag_of_words_estimator():
    docs = ["a b b", "b c"]
    bow = nb.BagOfWords().fit(docs)
    assert bow.vocabulary_ == ["a", "b", "c"]
    assert np.array_equal(bow.transform(docs).toarray(), [[1, 2, 0], [0, 1, 1]])
    assert np.array_equal(bow.fit_transform(docs).toarray(), bow.transform(docs).toarray())
    assert list(bow.get_feature_names_out()) == ["a", "b", "c"]


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: nb.build_vocabulary("one string"), TypeError, "list of texts"),
        (lambda: nb.build_vocabulary([b"bytes"]), TypeError, "str only"),
        (lambda: nb.build_vocabulary(["a"], min_df=2), ValueError, "min_df"),
        (lambda: nb.count_words(["a"], "a"), TypeError, "list of words"),
        (lambda: nb.count_words(["a"], ["a", "a"]), ValueError, "more than once"),
    ],
)
def test_bag_of_words_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------- closed forms --

def test_mle_at_alpha_zero_is_counts_over_total():
    X, y = _counts(0)
    class_count, feature_count = nb.class_statistics(X, y, 3)
    assert np.array_equal(class_count, np.bincount(y))
    N = np.stack([X[y == k].sum(axis=0) for k in range(3)])
    assert np.array_equal(feature_count, N)
    log_probs = nb.multinomial_log_probs(feature_count, alpha=0.0)
    with np.errstate(divide="ignore"):
        assert np.allclose(np.exp(log_probs), N / N.sum(axis=1, keepdims=True), rtol=1e-12, atol=0)
    assert np.allclose(nb.class_log_priors(class_count), np.log(np.bincount(y) / len(y)))


def test_smoothed_closed_form_and_shrinkage():
    X, y = _counts(1)
    _, N = nb.class_statistics(X, y, 3)
    V = X.shape[1]
    for alpha in (0.1, 1.0, 7.0):
        theta = np.exp(nb.multinomial_log_probs(N, alpha))
        assert np.allclose(theta, (N + alpha) / (N.sum(axis=1, keepdims=True) + alpha * V), rtol=1e-12)
        assert np.allclose(theta.sum(axis=1), 1.0, atol=1e-12)
        # a convex combination of the MLE and the uniform distribution, weight rho_k = N_k / (N_k + alpha V)
        N_k = N.sum(axis=1, keepdims=True)
        rho = N_k / (N_k + alpha * V)
        assert np.allclose(theta, rho * N / N_k + (1 - rho) / V, rtol=1e-12)


def test_smoothing_limits():
    X, y = _counts(2)
    _, N = nb.class_statistics(X, y, 3)
    V = X.shape[1]
    # alpha -> infinity: uniform; alpha -> 0: the MLE
    assert np.allclose(np.exp(nb.multinomial_log_probs(N, 1e12)), 1.0 / V, rtol=1e-9)
    N_pos = N + 1.0  # no zero counts, so the MLE is finite
    assert np.allclose(nb.multinomial_log_probs(N_pos, 1e-12), nb.multinomial_log_probs(N_pos, 0.0), atol=1e-9)


def test_bernoulli_closed_form():
    X, y = _counts(3)
    B = (X > 0).astype(float)
    n_k, D = nb.class_statistics(B, y, 3)
    for alpha in (0.0, 0.5, 1.0):
        with np.errstate(divide="ignore"):
            want = np.log((D + alpha) / (n_k[:, None] + 2 * alpha))
        got = nb.bernoulli_log_probs(D, n_k, alpha)
        assert np.array_equal(np.isneginf(got), np.isneginf(want))
        finite = np.isfinite(want)
        assert np.allclose(got[finite], want[finite], rtol=1e-12)


# ----------------------------------------------- agreement with scikit-learn --

@pytest.mark.parametrize("alpha", [1e-3, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_multinomial_matches_sklearn(alpha, sparse):
    X, y = _counts(4)
    Xs = scipy.sparse.csr_matrix(X) if sparse else X
    ours = nb.MultinomialNaiveBayes(alpha=alpha).fit(Xs, y)
    ref = MultinomialNB(alpha=alpha).fit(X, y)
    X_new, _ = _counts(5, n=25)
    X_new = scipy.sparse.csr_matrix(X_new) if sparse else X_new
    assert np.allclose(ours.log_probs_, ref.feature_log_prob_, rtol=0, atol=1e-10)
    assert np.allclose(np.log(ours.priors_), ref.class_log_prior_, rtol=0, atol=1e-10)
    assert np.allclose(ours.predict_joint_log_proba(X_new), ref.predict_joint_log_proba(X_new), rtol=0, atol=1e-10)
    assert np.allclose(ours.predict_log_proba(X_new), ref.predict_log_proba(X_new), rtol=0, atol=1e-10)
    assert np.allclose(ours.predict_proba(X_new), ref.predict_proba(X_new), rtol=0, atol=1e-10)
    assert np.array_equal(ours.predict(X_new), ref.predict(X_new))


@pytest.mark.parametrize("alpha", [1e-3, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("binarize", [0.0, 1.0])
def test_bernoulli_matches_sklearn(alpha, binarize):
    X, y = _counts(6)
    ours = nb.BernoulliNaiveBayes(alpha=alpha, binarize=binarize).fit(scipy.sparse.csr_matrix(X), y)
    ref = BernoulliNB(alpha=alpha, binarize=binarize).fit(X, y)
    X_new, _ = _counts(7, n=25)
    assert np.allclose(ours.log_probs_, ref.feature_log_prob_, rtol=0, atol=1e-10)
    assert np.allclose(ours.predict_joint_log_proba(X_new), ref.predict_joint_log_proba(X_new), rtol=0, atol=1e-10)
    assert np.allclose(ours.predict_log_proba(X_new), ref.predict_log_proba(X_new), rtol=0, atol=1e-10)
    assert np.array_equal(ours.predict(X_new), ref.predict(X_new))


def test_string_labels_and_score():
    X, y = _counts(8, K=2)
    labels = np.array(["ham", "spam"])[y]
    model = nb.MultinomialNaiveBayes().fit(X, labels)
    assert list(model.classes_) == ["ham", "spam"]
    assert set(model.predict(X)) <= {"ham", "spam"}
    assert model.score(X, labels) == np.mean(model.predict(X) == labels)


# ----------------------------------------------------------------- properties --

def test_posteriors_sum_to_one_and_match_bayes_rule():
    X, y = _counts(9)
    model = nb.MultinomialNaiveBayes(alpha=0.7).fit(X, y)
    post = model.predict_proba(X)
    assert np.allclose(post.sum(axis=1), 1.0, atol=1e-12)
    # Bayes' rule directly on small documents, where the products do not underflow
    theta = np.exp(model.log_probs_)
    small = X[:5]
    joint = model.priors_ * np.prod(theta[None, :, :] ** small[:, None, :], axis=2)
    assert np.allclose(post[:5], joint / joint.sum(axis=1, keepdims=True), rtol=1e-10)


def test_log_space_survives_long_documents():
    X, y = _counts(10, K=2)
    model = nb.MultinomialNaiveBayes().fit(X, y)
    long_doc = 500 * X[:3]  # thousands of words: the products underflow to 0
    theta = np.exp(model.log_probs_)
    with np.errstate(under="ignore"):
        assert np.all(np.prod(theta[None] ** long_doc[:, None, :], axis=2) == 0)
    log_post = model.predict_log_proba(long_doc)
    assert np.all(np.isfinite(logsumexp(log_post, axis=1)))
    assert np.allclose(logsumexp(log_post, axis=1), 0.0, atol=1e-12)


def test_log_odds_are_linear_in_the_counts():
    X, y = _counts(11, K=2)
    model = nb.MultinomialNaiveBayes(alpha=1.0).fit(X, y)
    joint = model.predict_joint_log_proba(X)
    w = model.log_probs_[1] - model.log_probs_[0]
    b = np.log(model.priors_[1] / model.priors_[0])
    assert np.allclose(joint[:, 1] - joint[:, 0], X @ w + b, rtol=1e-12)
    # doubling a document doubles the likelihood part of its log odds
    joint2 = model.predict_joint_log_proba(2 * X)
    assert np.allclose(joint2[:, 1] - joint2[:, 0] - b, 2 * (X @ w), rtol=1e-12)


def test_zero_counts_without_smoothing_make_a_class_impossible():
    X = np.array([[3, 1, 0], [2, 2, 0], [0, 1, 4], [0, 2, 3]])
    y = np.array([0, 0, 1, 1])
    mle = nb.MultinomialNaiveBayes(alpha=0).fit(X, y)
    # word 0 never occurs in class 1, word 2 never in class 0
    post = mle.predict_log_proba(np.array([[1, 0, 0], [0, 0, 1], [1, 0, 1]]))
    assert post[0, 1] == -np.inf and post[0, 0] == 0.0
    assert post[1, 0] == -np.inf and post[1, 1] == 0.0
    assert np.all(np.isnan(post[2]))  # impossible under both: 0/0
    smoothed = nb.MultinomialNaiveBayes(alpha=1.0).fit(X, y)
    assert np.all(np.isfinite(smoothed.predict_log_proba(np.array([[1, 0, 1]]))))


def test_dense_and_sparse_agree():
    X, y = _counts(12)
    a = nb.MultinomialNaiveBayes().fit(X, y).predict_log_proba(X)
    b = nb.MultinomialNaiveBayes().fit(scipy.sparse.csr_matrix(X), y).predict_log_proba(scipy.sparse.csc_matrix(X))
    assert np.allclose(a, b, rtol=1e-13, atol=1e-13)


# ---------------------------------------------------------------- validation --

@pytest.mark.parametrize(
    "X, y, kwargs, error, match",
    [
        ([[1, -1], [0, 2]], [0, 1], {}, ValueError, "negative"),
        ([[1, np.nan], [0, 2]], [0, 1], {}, ValueError, "NaN"),
        ([1, 2, 3], [0, 1, 0], {}, ValueError, "2-dimensional"),
        ([["a", "b"], ["c", "d"]], [0, 1], {}, TypeError, "word counts"),
        ([[1, 2], [0, 2]], [0, 0], {}, ValueError, "at least 2"),
        ([[1, 2], [0, 2]], [0, 1, 1], {}, ValueError, "must match"),
        ([[1, 2], [0, 2]], [0, 1], {"alpha": -1.0}, ValueError, "alpha"),
        ([[1, 2], [0, 2]], [0, 1], {"alpha": "one"}, TypeError, "alpha"),
    ],
)
def test_bad_fit_input(X, y, kwargs, error, match):
    with pytest.raises(error, match=match):
        nb.MultinomialNaiveBayes(**kwargs).fit(X, y)


def test_predict_checks_vocabulary_size_and_fit():
    X, y = _counts(13)
    model = nb.MultinomialNaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :-1])
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        nb.BernoulliNaiveBayes().predict(X)


def test_empty_class_without_smoothing_is_refused():
    with pytest.raises(ValueError, match="no words"):
        nb.multinomial_log_probs(np.array([[0.0, 0.0], [1.0, 2.0]]), alpha=0.0)


# -------------------------------------------------------------- the corpus --

def test_spam_corpus_is_classified_well():
    texts_train, y_train = datasets.load_spam("train")
    texts_test, y_test = datasets.load_spam("test")
    bow = nb.BagOfWords().fit(texts_train)
    model = nb.MultinomialNaiveBayes(alpha=1.0).fit(bow.transform(texts_train), y_train)
    assert model.score(bow.transform(texts_test), y_test) > 0.95
