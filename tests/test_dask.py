"""EM on Dask arrays (lib/_dask.py): the same fit as in memory, whatever the chunking or scheduler.

The in-memory fit is the reference: from the same starting point, the fitted
parameters and the log-likelihood trace of a fit on a chunked Dask array must
equal it to 1e-10 relative, through the threaded scheduler, through a
``dask.distributed`` cluster of two worker processes, and when one of those
workers is killed in the middle of the fit (Dask recomputes its chunks).  On
hard data (clusters 1e6 of their width apart, far from the origin) the chunk
sums about the current means keep their digits: the M-step matches one done in
extended precision.
"""

import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")  # requirements.txt pins Dask: make test runs these
dask = pytest.importorskip("dask")

from lib._validation import ConvergenceWarning  # noqa: E402
from lib.mixture import GaussianMixture, e_step  # noqa: E402

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]


def _data(seed=0, n=900, d=3):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (n // 2, d)), rng.normal(4, 0.6, (n - n // 2, d))])
    return X @ (np.eye(d) + 0.3 * rng.normal(size=(d, d)))


def _fit(X, covariance_type="full", **kw):
    kw = {"n_components": 3, "covariance_type": covariance_type, "max_iter": 15, "tol": 0.0, "random_state": 3,
          "init_params": "random_seeds", **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return GaussianMixture(**kw).fit(X)


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


def _assert_same_fit(ours, ref, rtol=1e-10):
    assert _rel(ours.weights_, ref.weights_) < rtol
    assert _rel(ours.means_, ref.means_) < rtol
    assert _rel(ours.covariances_, ref.covariances_) < rtol
    assert _rel(ours.log_likelihood_history_, ref.log_likelihood_history_) < rtol
    assert ours.lower_bound_ == pytest.approx(ref.lower_bound_, rel=rtol)
    assert ours.n_iter_ == ref.n_iter_ and ours.converged_ == ref.converged_


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("chunks", [900, 300, 137, 1])
def test_fit_equals_the_in_memory_fit_whatever_the_chunking(covariance_type, chunks):
    X = _data()
    if chunks == 1:  # a chunk per row is slow: fewer rows
        X = X[::9]
    ref = _fit(X, covariance_type)
    ours = _fit(da.from_array(X, chunks=(chunks, X.shape[1])), covariance_type)
    _assert_same_fit(ours, ref)


@pytest.mark.parametrize("init_params", ["k-means++_nearest", "random_seeds", "given"])
def test_initialisations_read_a_sample_or_nothing_and_match_in_memory(init_params):
    X = _data(1)
    given = {}
    if init_params == "given":
        given = dict(weights_init=[0.3, 0.3, 0.4], means_init=X[[0, 400, 800]],
                     covariances_init=np.array([np.eye(3)] * 3))
    ref = _fit(X, init_params=init_params, **given)
    ours = _fit(da.from_array(X, chunks=200), init_params=init_params, **given)
    _assert_same_fit(ours, ref)


def test_kmeanspp_on_a_sample_and_random_init_run():
    X = _data(2)
    dX = da.from_array(X, chunks=250)
    sampled = _fit(dX, init_params="k-means++_nearest", init_sample_size=100)
    assert np.all(np.diff(sampled.log_likelihood_history_) > -1e-9)  # EM never lowers it
    rand = _fit(dX, init_params="random")
    assert np.all(np.diff(rand.log_likelihood_history_) > -1e-9)
    # the same seed gives the same random responsibilities whatever the scheduler
    again = _fit(dX, init_params="random")
    assert np.array_equal(rand.means_, again.means_)


def test_predictions_are_lazy_and_chunked_like_X():
    X = _data(3)
    dX = da.from_array(X, chunks=(250, 3))
    model = _fit(X)
    for method, shape in (("predict", (len(X),)), ("score_samples", (len(X),)), ("predict_proba", (len(X), 3))):
        lazy = getattr(model, method)(dX)
        assert isinstance(lazy, da.Array), method
        assert lazy.shape == shape and lazy.chunks[0] == dX.chunks[0], method
        np.testing.assert_allclose(lazy.compute(), getattr(model, method)(X), rtol=1e-12, atol=1e-300)
    score = model.score(dX)
    assert isinstance(score, float) and score == pytest.approx(model.score(X), rel=1e-12)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_chunk_sums_keep_their_digits_on_hard_data(covariance_type):
    """Five clusters 1e-3 wide, centres ~1000 apart, offset 1e7 (d = 10): one M-step
    from the chunk sums equals an extended-precision M-step to 1e-10 per component."""
    rng = np.random.default_rng(5)
    K, d, n = 5, 10, 3000
    centres = 1e7 + 1000 * rng.normal(size=(K, d))
    z = rng.integers(K, size=n)
    X = centres[z] + 1e-3 * rng.normal(size=(n, d))
    means = centres + 1e-4 * rng.normal(size=(K, d))
    cov = {"full": np.array([1e-6 * np.eye(d)] * K), "tied": 1e-6 * np.eye(d),
           "diag": np.full((K, d), 1e-6), "spherical": np.full(K, 1e-6)}[covariance_type]
    weights = np.full(K, 1 / K)
    ours = _fit(da.from_array(X, chunks=700), covariance_type, n_components=K, init_params="given",
                weights_init=weights, means_init=means, covariances_init=cov, max_iter=1, reg_covar=1e-12)
    resp, _ = e_step(X, weights, means, cov, covariance_type)
    Xl, rl = X.astype(np.longdouble), resp.astype(np.longdouble)
    n_k = rl.sum(axis=0) + np.longdouble(10 * np.finfo(float).eps)
    mu = (rl.T @ Xl) / n_k[:, None]
    dev = [(rl[:, k, None] * (Xl - mu[k])).T @ (Xl - mu[k]) / n_k[k] for k in range(K)]
    np.testing.assert_allclose(ours.means_, mu.astype(float), rtol=1e-14)
    for k in range(K):
        want = {"full": dev[k], "diag": np.diagonal(dev[k]), "spherical": np.trace(dev[k]) / d,
                "tied": None}[covariance_type]
        if want is None:
            break
        got = {"full": ours.covariances_, "diag": ours.covariances_, "spherical": ours.covariances_}[covariance_type][k]
        assert _rel(got - 1e-12 * (np.eye(d) if covariance_type == "full" else 1), want.astype(float)) < 1e-10
    if covariance_type == "tied":
        want = sum(dev[k] * n_k[k] for k in range(K)) / n_k.sum()
        assert _rel(ours.covariances_ - 1e-12 * np.eye(d), want.astype(float)) < 1e-10


def test_warm_start_continues_as_in_memory():
    """One EM loop serves both paths: a warm start on Dask continues from the last fit, as in memory."""
    X = _data(2)
    ref = _fit(X, max_iter=4, warm_start=True)
    ours = _fit(da.from_array(X, chunks=250), max_iter=4, warm_start=True)
    for model, data in ((ref, X), (ours, da.from_array(X, chunks=250))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(data)  # four more iterations from where the first fit stopped
    _assert_same_fit(ours, ref)
    assert len(ours.lower_bounds_) == 4 and ours.lower_bounds_[0] >= ref.lower_bounds_[0] - 1e-12


def test_chunks_use_the_fast_path_statistics(monkeypatch):
    """The chunk sums are the in-memory fit's own (lib._fastpath.chunk_statistics): one home."""
    import lib._fastpath

    calls = []
    original = lib._fastpath.chunk_statistics

    def spy(*args, **kwargs):
        calls.append(args[0].shape[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(lib._fastpath, "chunk_statistics", spy)
    X = _data(3)
    with dask.config.set(scheduler="synchronous"):
        _fit(da.from_array(X, chunks=300), max_iter=2)
    calls = [m for m in calls if m]  # Dask also calls it on empty blocks to learn the output type
    assert set(calls) == {300} and len(calls) >= 2 * 3  # every chunk, every iteration


@pytest.mark.parametrize("init_params", ["kmeans", "k-means++", "random_from_data"])
def test_in_memory_only_initialisations_are_refused_on_dask(init_params):
    with pytest.raises(ValueError, match="needs all of X in memory"):
        GaussianMixture(2, init_params=init_params).fit(da.from_array(_data(), chunks=300))


def test_bad_dask_input_is_explained():
    with pytest.raises(ValueError, match="2-D"):
        GaussianMixture(2).fit(da.zeros((10, 2, 2)))
    X = da.from_array(_data(), chunks=100)
    unknown = X[X[:, 0] > 0]  # boolean indexing: chunk sizes unknown
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        GaussianMixture(2).fit(unknown)
    model = _fit(_data())
    with pytest.raises(ValueError, match="features"):
        model.predict(da.zeros((5, 4)))


def test_a_dask_collection_without_dask_says_what_to_install(monkeypatch):
    class FakeDask:  # what a Dask array looks like to lib, seen without Dask installed
        def __dask_graph__(self):
            return {}

    for name in [m for m in sys.modules if m == "dask" or m.startswith("dask.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)  # import dask now raises ImportError
    with pytest.raises(ImportError, match=r'genmodels-lib\[dask\]'):
        GaussianMixture(2).fit(FakeDask())


def test_lib_imports_without_dask():
    code = ("import sys; sys.modules['dask'] = None; import lib, lib.mixture, lib.plotting; "
            "lib.mixture.GaussianMixture(1).fit([[0.0], [1.0], [2.0]]); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


# ------------------------------------------------------------- a real cluster --

@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0",
                                  silence_logs=40) as cl, distributed.Client(cl) as client:
        yield cl, client


def test_fit_on_a_two_process_local_cluster(cluster):
    _, client = cluster
    assert len(client.scheduler_info()["workers"]) == 2
    X = _data(4)
    ref = _fit(X)
    ours = _fit(da.from_array(X, chunks=150))  # the Client is the default scheduler here
    _assert_same_fit(ours, ref)


def test_a_worker_killed_mid_fit_does_not_change_the_result(cluster):
    cl, client = cluster
    X = _data(6, n=60_000, d=4)
    ref = _fit(X, max_iter=12)
    result, errors = {}, []

    def fit():
        try:
            result["model"] = _fit(da.from_array(X, chunks=2_000), max_iter=12)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    pids = client.run(os.getpid)  # worker address -> pid
    thread = threading.Thread(target=fit)
    thread.start()
    deadline = time.time() + 60
    while not client.processing() or not any(client.processing().values()):  # wait for tasks to run
        assert time.time() < deadline, "the fit never started on the cluster"
        time.sleep(0.02)
    time.sleep(0.3)
    assert thread.is_alive(), "the fit ended before a worker could be killed: make it longer"
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    thread.join(timeout=300)
    assert not thread.is_alive() and not errors, errors
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values(), "the killed worker was not replaced"
    _assert_same_fit(result["model"], ref)


def test_dask_is_an_optional_extra_of_the_package():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    assert not any(dep.startswith(("dask", "distributed")) for dep in project["dependencies"])
    extra = project["optional-dependencies"]["dask"]
    assert any(dep.startswith("dask[array]") for dep in extra) and any(dep.startswith("distributed") for dep in extra)


def test_one_em_loop_over_two_backends_that_do_not_import_the_estimator():
    """Issue 28's layering: the estimator (lib.mixture) above, the loop body lib._fastpath.em_iteration,
    and the two statistics backends below it with one interface; no backend imports lib.mixture."""
    import ast
    from pathlib import Path

    import lib._dask
    import lib._fastpath

    for module in (lib._dask, lib._fastpath):
        tree = ast.parse(Path(module.__file__).read_text())
        imported = {(node.module or "") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert not any(name.split(".")[-1] == "mixture" for name in imported), (module.__name__, imported)
    for backend in (lib._fastpath.SufficientStatistics, lib._dask.ChunkedData):
        assert all(callable(getattr(backend, name, None)) for name in ("hard", "e_step", "final"))
