"""Checks for the exercises of chapter 4's "EM at scale" page: the M-step from chunk sums, a step of stepwise EM.

The reference is :func:`lib.mixture.m_step` on all the rows at once (no ridge),
evaluated on fresh data the student does not see; no message shows a
reference value.  Each typical mistake is computed and named.
"""

from importlib import import_module

import numpy as np

from ._core import check_rng  # every input a check draws: salted while the grader judges (issue 49)

from ._core import Failure, call, check, expect_array, expect_tuple

__all__ = ["em_m_step_from_sums", "em_stepwise_step"]


def _close(a, b, rtol=1e-7, atol=1e-9):
    return a.shape == np.shape(b) and bool(np.allclose(a, b, rtol=rtol, atol=atol))


def _problem(rng, n, d, K, offset):
    """Rows far from the origin, responsibilities from an E-step, the chunk sums about the old means."""
    mixture = import_module("..mixture", __package__)  # the copy of lib this check came from
    means = offset + 4.0 * rng.normal(size=(K, d))
    X = means[rng.integers(K, size=n)] + rng.normal(size=(n, d))
    weights = rng.dirichlet(np.full(K, 5.0))
    old_means = means + rng.normal(scale=0.7, size=(K, d))  # c_k: the means the E-step used
    covs = np.array([np.eye(d) * rng.uniform(0.6, 1.6) for _ in range(K)])
    resp, _ = mixture.e_step(X, weights, old_means, covs, "full")
    counts, first, second = np.zeros(K), np.zeros((K, d)), np.zeros((K, d, d))
    for rows in np.array_split(np.arange(n), 3):  # three chunks, summed as a cluster would
        r, diff = resp[rows], X[rows][None, :, :] - old_means[:, None, :]  # (rows, K), (K, rows, d)
        counts += r.sum(axis=0)
        first += np.einsum("ik,kid->kd", r, diff)
        second += np.einsum("ik,kid,kie->kde", r, diff, diff)
    want = mixture.m_step(X, resp, "full", reg_covar=0.0)
    return (counts, first, second, old_means, n), want


@check(
    "ex-em-sums-m-step",
    "matches lib.mixture.m_step on all the rows (no ridge) for 3 mixtures whose chunk sums were "
    "taken about the previous means (d = 2, 3; data up to 1e4 from the origin).",
    solves=("lib._fastpath.m_step", "lib.mixture.m_step"),
    allow=(),
)
def em_m_step_from_sums(student_fn):
    name = "m_step_from_sums"
    rng = check_rng(4404)
    for n, d, K, offset in [(90, 2, 3, 0.0), (120, 3, 2, 50.0), (150, 2, 4, 1e4)]:
        args, (want_w, want_m, want_c) = _problem(rng, n, d, K, offset)
        counts, first, second, centres, _ = args
        out = call(student_fn, *(np.copy(a) if isinstance(a, np.ndarray) else a for a in args), name=name)
        expect_tuple(out, 3, "(weights, means, covariances)", name=name)
        weights = expect_array(out[0], (K,), "the weights", name=name)
        means = expect_array(out[1], (K, d), "the means", name=name)
        covs = expect_array(out[2], (K, d, d), "the covariances", name=name)
        shift = first / counts[:, None]  # (K, d): delta_k = first / n_k

        if not _close(weights, want_w):
            for value, message in [
                (counts, "your weights are the soft counts n_k; divide by the number of points n."),
                (counts / K, "you divided the soft counts by K; pi_k = n_k / n."),
                (counts / counts.max(), "divide the soft counts by n, the number of points, not by the largest."),
            ]:
                if _close(weights, value):
                    raise Failure(message)
            raise Failure("your weights differ from pi_k = n_k / n.")

        if not _close(means, want_m, atol=1e-9 * max(1.0, offset)):
            for value, message in [
                (shift, "your means are delta_k = first / n_k, the step from c_k: add the centre c_k back."),
                (centres, "your means are the centres c_k: the new mean is c_k + delta_k, delta_k = first / n_k."),
                (centres + first / n,
                 "you divided the sums n_k delta_k (first) by n; the step delta_k of component k divides "
                 "them by n_k, its own soft count."),
                (centres - shift, "the sign of the step is wrong: mu_k = c_k + delta_k."),
                (first, "your means are the sums n_k delta_k (first): divide by n_k and add c_k."),
            ]:
                if _close(means, value, atol=1e-9 * max(1.0, offset)):
                    raise Failure(message)
            raise Failure("your means differ from mu_k = c_k + delta_k, delta_k = first / n_k.")

        if _close(covs, want_c):
            continue
        outer = shift[:, :, None] * shift[:, None, :]  # (K, d, d)
        mistakes = [
            (second / counts[:, None, None],
             "your covariances are S_k / n_k, the scatter about the old centres c_k: subtract "
             "delta_k delta_k^T, which moves it to the new means (expand x_i - mu_k = (x_i - c_k) - delta_k)."),
            (second / counts[:, None, None] + outer,
             "the correction has the wrong sign: expanding x_i - mu_k = (x_i - c_k) - delta_k gives "
             "S_k / n_k MINUS delta_k delta_k^T."),
            (second / counts[:, None, None] - 2.0 * outer,
             "you kept both cross terms but not the square: the cross terms give -2 n_k delta_k delta_k^T and "
             "the square gives +1 times it, so the correction is -n_k delta_k delta_k^T once."),
            (second / n - outer,
             "your covariances divide the scatter by n; each component divides by its own soft count n_k."),
            ((second - outer) / counts[:, None, None],
             "the correction is delta_k delta_k^T after dividing S_k by n_k (or n_k delta_k delta_k^T before)."),
            (second / (counts - 1)[:, None, None] - outer,
             "your covariances divide by n_k - 1: the maximum-likelihood M-step divides by n_k."),
        ]
        for value, message in mistakes:
            if _close(covs, value):
                raise Failure(message)
        if offset >= 1e3 and _close(covs, want_c, rtol=0.5, atol=0.5):
            raise Failure(
                f"your covariances are right for data near the origin but wrong for data {offset:g} away from it: "
                "moments about the origin (sum gamma x x^T / n_k - mu_k mu_k^T) subtract numbers near the square "
                "of that distance and lose their digits (the cancellation this page is about). Stay with the "
                "sums about the centres: S_k / n_k - delta_k delta_k^T.")
        raise Failure("your covariances differ from Sigma_k = S_k / n_k - delta_k delta_k^T.")


@check(
    "ex-em-stepwise",
    "matches one step of stepwise EM (lib.online_em) on 3 minibatches (d = 2, 3; steps t = 0, 4, 40; "
    "exponents 0.6, 0.8, 1), with statistics about a centre far from the origin in one of them.",
    solves=("lib.online_em.minibatch_statistics", "lib.online_em.stepwise_em", "lib.online_em.step_sizes"),
    allow=("lib.mixture.e_step",),
)
def em_stepwise_step(student_fn):
    online = import_module("..online_em", __package__)
    mixture = import_module("..mixture", __package__)
    name = "stepwise_step"
    rng = check_rng(4414)
    # t = 4 first: at t = 0 a step (t + 1)^(-tau) is 1, the minibatch alone, and would be named so
    for m, d, K, t, tau, offset in [(25, 3, 2, 4, 0.8, 100.0), (40, 2, 3, 0, 0.6, 0.0), (60, 2, 4, 40, 1.0, 5.0)]:
        means = offset + 3.0 * rng.normal(size=(K, d))
        X = means[rng.integers(K, size=m)] + rng.normal(size=(m, d))
        weights = rng.dirichlet(np.full(K, 5.0))
        covs = np.array([np.eye(d) * rng.uniform(0.6, 1.6) for _ in range(K)])
        centre = X.mean(axis=0) + rng.normal(scale=0.3, size=d)
        off = means - centre
        stats = (weights.copy(), weights[:, None] * off,
                 weights[:, None, None] * (covs + off[:, :, None] * off[:, None, :]))
        resp, _ = mixture.e_step(X, weights, means, covs)
        batch = online.minibatch_statistics(X, resp, centre)
        eta = (t + 2.0) ** (-tau)
        want = [(1 - eta) * s + eta * b for s, b in zip(stats, batch)]
        args = (tuple(a.copy() for a in stats), X.copy(), weights.copy(), means.copy(), covs.copy(),
                centre.copy(), t, tau)
        out = call(student_fn, *args, name=name)
        expect_tuple(out, 3, "the new statistics (s0, s1, s2)", name=name, tuple_only=True)
        got = [expect_array(out[0], (K,), "s0", name=name),
               expect_array(out[1], (K, d), "s1", name=name),
               expect_array(out[2], (K, d, d), "s2", name=name)]
        if all(_close(g, w) for g, w in zip(got, want)):
            continue
        mistakes = [(list(batch), "you replaced the statistics by the minibatch's (a step of 1): average them with the step "
                     "eta_t = (t + 2)^(-tau), which is below 1 from the first step on.")]
        for label, step in [("(t + 1)^(-tau)", (t + 1.0) ** (-tau)), ("t^(-tau)", float(t) ** (-tau) if t else None),
                            ("(t + 2)^(-1)", (t + 2.0) ** -1.0), ("(t + 2)^tau", (t + 2.0) ** tau)]:
            if step is not None and step != eta:
                mistakes.append(([(1 - step) * s + step * b for s, b in zip(stats, batch)],
                                 f"your step size is {label}; this book's steps are eta_t = (t + 2)^(-tau)."))
        sums = [b * m for b in batch]
        mistakes += [
            ([(1 - eta) * s + eta * b for s, b in zip(stats, sums)],
             "you added the minibatch's sums; the statistics are averages per point: divide by the batch size."),
            ([s + eta * b for s, b in zip(stats, batch)],
             "you kept the old statistics at full weight: the new value is (1 - eta_t) s + eta_t s_hat."),
            ([(1 - eta) * b + eta * s for s, b in zip(stats, batch)],
             "the weights are swapped: the minibatch gets eta_t, the old statistics 1 - eta_t."),
        ]
        raw = online.minibatch_statistics(X, resp, np.zeros(d))
        mistakes.append(([(1 - eta) * s + eta * b for s, b in zip(stats, raw)],
                         "your minibatch statistics are about the origin; take x_i - c about the given centre c."))
        for value, message in mistakes:
            if all(_close(g, w) for g, w in zip(got, value)):
                raise Failure(message)
        for g, w, label in zip(got, want, ("s0", "s1", "s2")):
            if not _close(g, w):
                raise Failure(f"your {label} differs from (1 - eta_t) {label} + eta_t times the minibatch "
                              "average of its statistic.")
