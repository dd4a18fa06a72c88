r"""The variational Bayesian Gaussian mixture (Bishop 2006, section 10.2).

Model, with :math:`K` components in :math:`d` dimensions and precisions
:math:`\Lambda_k = \Sigma_k^{-1}` (book: chapters/05_3_bayesian_mixture.md,
equation ``vem-bgmm-model``):

.. math::

    \pi \sim \mathrm{Dirichlet}(\alpha_0, \dots, \alpha_0), \qquad
    (\mu_k, \Lambda_k) \sim \mathcal N\bigl(\bar\mu_0, (\beta_0 \Lambda_k)^{-1}\bigr)\,
    \mathcal W(W_0, \kappa_0), \\
    z_i \mid \pi \sim \mathrm{Categorical}(\pi), \qquad
    x_i \mid z_i = k \sim \mathcal N(\mu_k, \Lambda_k^{-1}).

The mean-field family :math:`q(Z)\, q(\pi, \mu, \Lambda)` is fitted by
coordinate ascent (CAVI); the optimal factors are a categorical
:math:`q(z_i) = (\gamma_{i1}, \dots, \gamma_{iK})`, a Dirichlet :math:`q(\pi)` with
concentrations :math:`\alpha_k` and Gaussian-Wisharts with parameters
:math:`(\bar\mu_k, \beta_k, W_k, \kappa_k)`.

Code names follow scikit-learn's ``BayesianGaussianMixture``, which fits the
same model with ``weight_concentration_prior_type="dirichlet_distribution"``:
``weight_concentration_`` is :math:`\alpha`, ``mean_precision_`` is
:math:`\beta`, ``means_`` is :math:`\bar\mu` (the :math:`\bar\mu_k`), ``degrees_of_freedom_`` is
:math:`\kappa` and ``covariances_`` is :math:`W_k^{-1} / \kappa_k`, the
inverse of :math:`\mathbb E_q[\Lambda_k] = \kappa_k W_k`.  The priors are
``weight_concentration_prior`` (:math:`\alpha_0`), ``mean_precision_prior``
(:math:`\beta_0`), ``mean_prior`` (:math:`\bar\mu_0`), ``degrees_of_freedom_prior``
(:math:`\kappa_0`) and ``covariance_prior`` (:math:`W_0^{-1}`).

:attr:`VariationalGaussianMixture.elbo_` is the whole evidence lower bound
:math:`\mathcal L(q)` of the page's equation ``vem-bgmm-elbo``;
:attr:`VariationalGaussianMixture.lower_bound_` is scikit-learn's
``lower_bound_``, which omits the constant :func:`sklearn_bound_offset`.
"""

import warnings

import numpy as np
from scipy import linalg
from scipy.special import digamma, gammaln, logsumexp
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    ConvergenceWarning,
    check_data,
    check_estimator_data,
    check_positive_int,
    check_positive_scalar,
)

__all__ = [
    "VariationalGaussianMixture",
    "vb_e_step",
    "vb_m_step",
    "vb_elbo",
    "log_wishart_normaliser",
    "log_dirichlet_normaliser",
    "sklearn_bound_offset",
]


def log_dirichlet_normaliser(alpha):
    r""":math:`\ln C(\alpha) = \ln\Gamma(\sum_k \alpha_k) - \sum_k \ln\Gamma(\alpha_k)`,
    the log of the Dirichlet density's normalising constant (Bishop eq. B.23)."""
    alpha = np.asarray(alpha, dtype=float)
    return float(gammaln(alpha.sum()) - gammaln(alpha).sum())


def log_wishart_normaliser(W, kappa):
    r""":math:`\ln C(W, \kappa)` of the Wishart density
    :math:`\mathcal W(\Lambda \mid W, \kappa) = C(W, \kappa)\, |\Lambda|^{(\kappa - d - 1)/2}
    \exp(-\tfrac12 \operatorname{tr}(W^{-1}\Lambda))` (Bishop eq. B.79, who writes :math:`B(W, \nu)`;
    book equation ``vem-wishart``, which writes it for :math:`W_0, \kappa_0` and :math:`W_k, \kappa_k`):

    .. math::

        \ln C(W, \kappa) = -\tfrac\kappa2 \ln|W| - \tfrac{\kappa d}{2}\ln 2 - \tfrac{d(d-1)}{4}\ln\pi
        - \sum_{j=1}^{d} \ln\Gamma\bigl(\tfrac{\kappa + 1 - j}{2}\bigr).

    ``W`` has shape ``(d, d)`` or ``(K, d, d)``, ``kappa`` is a float or ``(K,)``;
    returns a float or an array of shape ``(K,)``.
    """
    W = np.asarray(W, dtype=float)
    d = W.shape[-1]
    _, logdet = np.linalg.slogdet(W)
    kappa = np.asarray(kappa, dtype=float)
    j = np.arange(d)
    out = (-0.5 * kappa * logdet - 0.5 * kappa * d * np.log(2) - 0.25 * d * (d - 1) * np.log(np.pi)
           - gammaln(0.5 * (kappa[..., None] - j)).sum(axis=-1))
    return out if np.ndim(out) else float(out)


def _expected_log_det_precision(W_inv_chol, kappa, d):
    r""":math:`\mathbb E[\ln|\Lambda_k|] = \sum_{j=1}^d \psi\bigl(\tfrac{\kappa_k + 1 - j}{2}\bigr)
    + d \ln 2 + \ln|W_k|` (Bishop eq. 10.65; book equation ``vem-wishart-logdet``), from the
    Cholesky factors of :math:`W_k^{-1}`."""
    log_det_W = -2 * np.log(np.diagonal(W_inv_chol, axis1=1, axis2=2)).sum(axis=1)
    return digamma(0.5 * (kappa[:, None] - np.arange(d))).sum(axis=1) + d * np.log(2) + log_det_W


def vb_e_step(X, weight_concentration, mean_precision, means, degrees_of_freedom, covariances):
    r"""The update of :math:`q(Z)` (Bishop eqs. 10.46, 10.49, 10.64-10.66; book equation
    ``vem-bgmm-e-step``): the responsibilities :math:`\gamma_{ik}` normalise the expected
    log joints :math:`a_{ik}` of point :math:`i` and component :math:`k`,

    .. math::

        a_{ik} = \mathbb E[\ln\pi_k] + \tfrac12\mathbb E[\ln|\Lambda_k|] - \tfrac d2\ln 2\pi
        - \tfrac12\Bigl(\frac{d}{\beta_k} + \kappa_k (x_i - \bar\mu_k)^\top W_k (x_i - \bar\mu_k)\Bigr),
        \qquad \gamma_{ik} = \frac{e^{a_{ik}}}{\sum_l e^{a_{il}}},

    with :math:`\mathbb E[\ln\pi_k] = \psi(\alpha_k) - \psi(\sum_l\alpha_l)` (``vem-bgmm-dirichlet``)
    and :math:`\mathbb E[\ln|\Lambda_k|]` of ``vem-wishart-logdet``. The
    parameters are in scikit-learn's layout (``covariances`` is
    :math:`W_k^{-1}/\kappa_k`). Returns ``(resp, expected_log_joint)``, the
    :math:`\gamma_{ik}` and the :math:`a_{ik}`, both ``(n, K)``. Bishop writes
    :math:`r_{nk}` for :math:`\gamma_{ik}` and :math:`\ln\rho_{nk}` for :math:`a_{ik}`
    (eqs. 10.46, 10.49).
    """
    X = check_data(X)
    alpha = np.asarray(weight_concentration, dtype=float)
    beta = np.asarray(mean_precision, dtype=float)
    kappa = np.asarray(degrees_of_freedom, dtype=float)
    means, covariances = np.asarray(means, dtype=float), np.asarray(covariances, dtype=float)
    n, d = X.shape
    K = alpha.shape[0]
    if means.shape != (K, d) or covariances.shape != (K, d, d) or beta.shape != (K,) or kappa.shape != (K,):
        raise ValueError(f"parameters for K = {K} components in d = {d} dimensions need means (K, d), "
                         f"covariances (K, d, d), mean_precision and degrees_of_freedom (K,); got "
                         f"{means.shape}, {covariances.shape}, {beta.shape}, {kappa.shape}")
    W_inv = covariances * kappa[:, None, None]  # W_k^{-1}
    try:
        chol = np.linalg.cholesky(W_inv)  # W_k^{-1} = L L^T
    except np.linalg.LinAlgError:
        raise ValueError("covariances must be symmetric positive definite") from None
    expected_log_joint = np.empty((n, K))  # a_ik
    for k in range(K):
        # (x - mu_bar)^T W (x - mu_bar) = |L^{-1} (x - mu_bar)|^2 with W^{-1} = L L^T
        y = linalg.solve_triangular(chol[k], (X - means[k]).T, lower=True)
        expected_log_joint[:, k] = -0.5 * kappa[k] * np.sum(y**2, axis=0)
    e_log_pi = digamma(alpha) - digamma(alpha.sum())
    e_log_det = _expected_log_det_precision(chol, kappa, d)
    expected_log_joint += e_log_pi + 0.5 * e_log_det - 0.5 * d * np.log(2 * np.pi) - 0.5 * d / beta
    resp = np.exp(expected_log_joint - logsumexp(expected_log_joint, axis=1, keepdims=True))
    return resp, expected_log_joint


def vb_m_step(X, resp, weight_concentration_prior, mean_precision_prior, mean_prior,
              degrees_of_freedom_prior, covariance_prior, reg_covar=0.0):
    r"""The update of :math:`q(\pi, \mu, \Lambda)` from the responsibilities (Bishop eqs.
    10.51-10.53, 10.58, 10.60-10.63; book equation ``vem-bgmm-m-step``): with
    the soft counts :math:`n_k = \sum_i \gamma_{ik}`, :math:`\bar x_k` the weighted mean and
    :math:`S_k = \sum_i \gamma_{ik} (x_i - \bar x_k)(x_i - \bar x_k)^\top` the weighted scatter
    of chapter 4's M-step (whose covariance is :math:`S_k / n_k`),

    .. math::

        \alpha_k = \alpha_0 + n_k, \quad \beta_k = \beta_0 + n_k, \quad
        \bar\mu_k = \frac{\beta_0 \bar\mu_0 + n_k \bar x_k}{\beta_k}, \quad \kappa_k = \kappa_0 + n_k, \\
        W_k^{-1} = W_0^{-1} + S_k + \frac{\beta_0 n_k}{\beta_0 + n_k}
        (\bar x_k - \bar\mu_0)(\bar x_k - \bar\mu_0)^\top .

    Bishop writes :math:`N_k` for :math:`n_k`, :math:`r_{nk}` for :math:`\gamma_{ik}`,
    :math:`m_0`, :math:`m_k` for :math:`\bar\mu_0`, :math:`\bar\mu_k`, :math:`\nu` for :math:`\kappa` and
    :math:`S_k` for the weighted covariance :math:`S_k / n_k` (eqs. 10.51-10.53,
    10.58, 10.60-10.63).
    ``reg_covar`` is added to the diagonal of every weighted covariance :math:`S_k / n_k`
    (scikit-learn does so with its own ``reg_covar``). Returns ``(weight_concentration, mean_precision, means,
    degrees_of_freedom, covariances)`` in scikit-learn's layout, ``covariances`` being
    :math:`W_k^{-1}/\kappa_k`.
    """
    X = check_data(X)
    resp = np.asarray(resp, dtype=float)
    n, d = X.shape
    if resp.ndim != 2 or resp.shape[0] != n:
        raise ValueError(f"resp must have shape (n_samples, n_components) = ({n}, K); got {resp.shape}")
    if np.any(resp < 0) or not np.allclose(resp.sum(axis=1), 1.0, atol=1e-8):
        raise ValueError("resp must hold probabilities: non-negative rows that sum to 1")
    nk = resp.sum(axis=0) + 10 * np.finfo(float).eps  # scikit-learn's guard against 0 / 0
    xk = (resp.T @ X) / nk[:, None]
    K = resp.shape[1]
    cov_k = np.empty((K, d, d))  # S_k / n_k (+ reg_covar)
    for k in range(K):
        diff = X - xk[k]
        cov_k[k] = (resp[:, k] * diff.T) @ diff / nk[k]
        cov_k[k].flat[:: d + 1] += reg_covar
    m0 = np.asarray(mean_prior, dtype=float)
    alpha = weight_concentration_prior + nk
    beta = mean_precision_prior + nk
    means = (mean_precision_prior * m0 + nk[:, None] * xk) / beta[:, None]
    kappa = degrees_of_freedom_prior + nk
    dev = xk - m0
    W_inv = (np.asarray(covariance_prior, dtype=float) + nk[:, None, None] * cov_k
             + (nk * mean_precision_prior / beta)[:, None, None] * dev[:, :, None] * dev[:, None, :])
    return alpha, beta, means, kappa, W_inv / kappa[:, None, None]


def vb_elbo(resp, weight_concentration, mean_precision, degrees_of_freedom, covariances,
            weight_concentration_prior, mean_precision_prior, degrees_of_freedom_prior, covariance_prior):
    r"""The evidence lower bound at :math:`q(z_i = k) = \gamma_{ik}` (``resp``) and the :math:`q(\pi, \mu, \Lambda)`
    that :func:`vb_m_step` computes from that same ``resp`` (book equation
    ``vem-bgmm-elbo``):

    .. math::

        \mathcal L = -\sum_{i,k} \gamma_{ik}\ln \gamma_{ik} + \ln C(\alpha_0) - \ln C(\alpha)
        + \sum_{k=1}^K\Bigl[\ln C(W_0, \kappa_0) - \ln C(W_k, \kappa_k)
        + \tfrac d2\ln\frac{\beta_0}{\beta_k}\Bigr] - \tfrac{nd}{2}\ln 2\pi .

    With :math:`q(\pi, \mu, \Lambda)` optimal for :math:`q(Z)`, the ELBO is
    :math:`H(q(Z)) + \ln\int\exp\mathbb E_{q(Z)}[\ln p(X, Z, \pi, \mu, \Lambda)]\,d(\pi, \mu,
    \Lambda)`, and that integral is a ratio of the conjugate prior's and posterior's
    normalising constants. Only at such a pair is the formula the ELBO; the CAVI loop of
    :class:`VariationalGaussianMixture` evaluates it after every update of
    :math:`q(\pi, \mu, \Lambda)`. Returns a float (nats).
    """
    resp = np.asarray(resp, dtype=float)
    n = resp.shape[0]
    kappa = np.asarray(degrees_of_freedom, dtype=float)
    covariances = np.asarray(covariances, dtype=float)
    K, d = covariances.shape[0], covariances.shape[1]
    W = np.linalg.inv(covariances * kappa[:, None, None])
    W0 = np.linalg.inv(np.asarray(covariance_prior, dtype=float))
    entropy = -np.sum(resp[resp > 0] * np.log(resp[resp > 0]))
    return float(entropy + log_dirichlet_normaliser(np.full(K, float(weight_concentration_prior)))
                 - log_dirichlet_normaliser(weight_concentration)
                 + K * log_wishart_normaliser(W0, float(degrees_of_freedom_prior))
                 - np.sum(log_wishart_normaliser(W, kappa))
                 + 0.5 * d * np.sum(np.log(mean_precision_prior / np.asarray(mean_precision, dtype=float)))
                 - 0.5 * n * d * np.log(2 * np.pi))


def sklearn_bound_offset(n_samples, n_components, n_features, weight_concentration_prior,
                         mean_precision_prior, degrees_of_freedom_prior, covariance_prior):
    r"""The constant that scikit-learn's ``BayesianGaussianMixture.lower_bound_`` leaves out
    (``weight_concentration_prior_type="dirichlet_distribution"``, full covariances):

    .. math::

        \mathcal L - \mathcal L_{\text{sklearn}} = \ln C(\alpha_0 \mathbf 1_K)
        + K \ln C(W_0, \kappa_0) + \tfrac{Kd}{2}\ln\beta_0 - \tfrac{nd}{2}\ln 2\pi
        + \tfrac{K d (d-1)}{4}\ln\pi .

    scikit-learn keeps :math:`H(q(Z)) - \ln C(\alpha) - \sum_k \ln C(W_k, \kappa_k)
    - \tfrac d2\sum_k\ln\beta_k` and drops the :math:`\ln\pi` term of each
    :math:`\ln C(W_k, \kappa_k)`; every term it omits depends on the priors and the sizes
    only, so its bound differs from :func:`vb_elbo` by this number at every iteration.
    """
    K, d = int(n_components), int(n_features)
    W0 = np.linalg.inv(np.asarray(covariance_prior, dtype=float))
    return float(log_dirichlet_normaliser(np.full(K, float(weight_concentration_prior)))
                 + K * log_wishart_normaliser(W0, float(degrees_of_freedom_prior))
                 + 0.5 * K * d * np.log(mean_precision_prior)
                 - 0.5 * n_samples * d * np.log(2 * np.pi)
                 + 0.25 * K * d * (d - 1) * np.log(np.pi))


class VariationalGaussianMixture(DensityMixin, BaseEstimator):
    r"""Variational Bayesian Gaussian mixture with full covariances, fitted by CAVI.

    The model and the updates are Bishop's section 10.2 (book:
    chapters/05_3_bayesian_mixture.md, equations ``vem-bgmm-model``,
    ``vem-bgmm-e-step``, ``vem-bgmm-m-step`` and ``vem-bgmm-elbo``). Every iteration
    updates :math:`q(Z)` (:func:`vb_e_step`), then :math:`q(\pi, \mu, \Lambda)`
    (:func:`vb_m_step`), then evaluates the ELBO (:func:`vb_elbo`); the ELBO never
    decreases. The defaults, the start and the stopping rule are scikit-learn's
    ``BayesianGaussianMixture(weight_concentration_prior_type="dirichlet_distribution",
    covariance_type="full")``, so both fit the same parameters from the same
    ``random_state``.

    Parameters
    ----------
    n_components : int
        :math:`K`, an upper bound on the number of components used.
    weight_concentration_prior : float, default 1 / n_components
        :math:`\alpha_0 > 0` of the symmetric Dirichlet prior on the weights.
    mean_precision_prior : float, default 1.0
        :math:`\beta_0 > 0`.
    mean_prior : array of shape (d,), default the data mean
        :math:`\bar\mu_0` (Bishop's :math:`m_0`).
    degrees_of_freedom_prior : float, default d
        :math:`\kappa_0 > d - 1`.
    covariance_prior : array of shape (d, d), default the sample covariance of X
        :math:`W_0^{-1}`, symmetric positive definite.
    reg_covar : float, default 1e-6
        Added to the diagonal of each weighted covariance :math:`S_k / n_k` (scikit-learn's).
    init_params : {"kmeans", "random"}
        The first responsibilities: one-hot labels of scikit-learn's ``KMeans`` (one
        initialisation) or uniform random rows normalised to sum to 1.
    max_iter, tol : int, float
        Stop when the ELBO changes by less than ``tol`` in an iteration.
    random_state : int, RandomState or None

    Attributes
    ----------
    weight_concentration_, mean_precision_, means_, degrees_of_freedom_, covariances_
        The parameters of :math:`q`, in scikit-learn's layout.
    weights_ : (K,) the posterior mean weights :math:`\alpha_k / \sum_l \alpha_l`.
    elbo_, elbo_history_ : the ELBO after the last and after every iteration.
    lower_bound_, lower_bounds_ : the same minus :func:`sklearn_bound_offset`
        (scikit-learn's numbers).
    n_iter_, converged_
    """

    def __init__(self, n_components=1, *, weight_concentration_prior=None, mean_precision_prior=None,
                 mean_prior=None, degrees_of_freedom_prior=None, covariance_prior=None, reg_covar=1e-6,
                 init_params="kmeans", max_iter=100, tol=1e-3, random_state=None):
        self.n_components = n_components
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.reg_covar = reg_covar
        self.init_params = init_params
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _priors(self, X):
        n, d = X.shape
        K = self.n_components
        alpha0 = 1.0 / K if self.weight_concentration_prior is None else self.weight_concentration_prior
        beta0 = 1.0 if self.mean_precision_prior is None else self.mean_precision_prior
        check_positive_scalar(alpha0, "weight_concentration_prior")
        check_positive_scalar(beta0, "mean_precision_prior")
        m0 = X.mean(axis=0) if self.mean_prior is None else check_data(self.mean_prior, "mean_prior", ndim=1)
        if m0.shape != (d,):
            raise ValueError(f"mean_prior must have shape ({d},) for data with {d} features; got {m0.shape}")
        kappa0 = float(d) if self.degrees_of_freedom_prior is None else self.degrees_of_freedom_prior
        check_positive_scalar(kappa0, "degrees_of_freedom_prior")
        if kappa0 <= d - 1:
            raise ValueError(f"degrees_of_freedom_prior must exceed n_features - 1 = {d - 1} for a proper "
                             f"Wishart prior; got {kappa0}")
        if self.covariance_prior is None:
            W0_inv = np.atleast_2d(np.cov(X.T))
        else:
            W0_inv = check_data(self.covariance_prior, "covariance_prior")
        if W0_inv.shape != (d, d) or not np.allclose(W0_inv, W0_inv.T):
            raise ValueError(f"covariance_prior must be a symmetric ({d}, {d}) matrix; got shape {W0_inv.shape}")
        try:
            np.linalg.cholesky(W0_inv)
        except np.linalg.LinAlgError:
            raise ValueError("covariance_prior must be positive definite (the default, the sample covariance "
                             "of X, is singular when a feature is constant: pass covariance_prior)") from None
        return float(alpha0), float(beta0), m0, float(kappa0), W0_inv

    def _initial_resp(self, X, rng):
        n, K = X.shape[0], self.n_components
        if self.init_params == "kmeans":
            from sklearn.cluster import KMeans

            labels = KMeans(n_clusters=K, n_init=1, random_state=rng).fit(X).labels_
            resp = np.zeros((n, K))
            resp[np.arange(n), labels] = 1.0
        elif self.init_params == "random":
            resp = rng.uniform(size=(n, K))
            resp /= resp.sum(axis=1, keepdims=True)
        else:
            raise ValueError(f"init_params must be 'kmeans' or 'random'; got {self.init_params!r}")
        return resp

    def fit(self, X, y=None):
        """Fit q by CAVI; returns self."""
        X = check_estimator_data(self, X, reset=True)
        K = check_positive_int(self.n_components, "n_components")
        check_positive_int(self.max_iter, "max_iter")
        check_positive_scalar(self.tol, "tol", allow_zero=True)
        check_positive_scalar(self.reg_covar, "reg_covar", allow_zero=True)
        n, d = X.shape
        if n < K:
            raise ValueError(f"n_components = {K} exceeds the number of samples {n}")
        alpha0, beta0, m0, kappa0, W0_inv = self._priors(X)
        priors = (alpha0, beta0, m0, kappa0, W0_inv)
        rng = check_random_state(self.random_state)
        resp = self._initial_resp(X, rng)
        params = vb_m_step(X, resp, *priors, reg_covar=self.reg_covar)
        offset = sklearn_bound_offset(n, K, d, alpha0, beta0, kappa0, W0_inv)
        history = []
        elbo = -np.inf
        self.converged_ = False
        for it in range(1, self.max_iter + 1):
            resp, _ = vb_e_step(X, *params)
            params = vb_m_step(X, resp, *priors, reg_covar=self.reg_covar)
            previous, elbo = elbo, vb_elbo(resp, params[0], params[1], params[3], params[4],
                                           alpha0, beta0, kappa0, W0_inv)
            history.append(elbo)
            if abs(elbo - previous) < self.tol:
                self.converged_ = True
                break
        if not self.converged_:
            warnings.warn(f"CAVI did not converge in {self.max_iter} iterations (ELBO change "
                          f"{history[-1] - history[-2] if len(history) > 1 else float('nan'):.3g} >= tol "
                          f"= {self.tol}); raise max_iter or tol", ConvergenceWarning)
        (self.weight_concentration_, self.mean_precision_, self.means_, self.degrees_of_freedom_,
         self.covariances_) = params
        self.weights_ = self.weight_concentration_ / self.weight_concentration_.sum()
        self.n_iter_ = it
        self.elbo_history_ = np.array(history)
        self.elbo_ = float(history[-1])
        self.lower_bounds_ = self.elbo_history_ - offset
        self.lower_bound_ = self.elbo_ - offset
        return self

    def _params(self):
        return (self.weight_concentration_, self.mean_precision_, self.means_, self.degrees_of_freedom_,
                self.covariances_)

    def predict_proba(self, X):
        """The responsibilities r_ik of one more q(Z) update at the fitted q; shape (n, K)."""
        check_is_fitted(self, "means_")
        X = check_estimator_data(self, X, reset=False)
        return vb_e_step(X, *self._params())[0]

    def predict(self, X):
        """The component with the largest responsibility, shape (n,)."""
        return np.argmax(self.predict_proba(X), axis=1)
