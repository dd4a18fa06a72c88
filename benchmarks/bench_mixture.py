"""Time per EM iteration: lib.mixture.GaussianMixture against scikit-learn's.

Both libraries run in this one process, on the same data, from the same initial
parameters (weights, means and covariances/precisions given explicitly), with
``tol=0`` so that neither stops early.  The time of one EM iteration is

    (median time of fit with max_iter=m  -  median time with max_iter=1) / (m - 1),

which cancels each library's one-off costs (validation, set-up from the given
parameters, lib's feature matrix, the final E-step).  The four fits of a repeat
are interleaved (lib, sklearn, lib, sklearn) and the reported times are medians
over the repeats.  BLAS (and OpenMP) threads are limited with threadpoolctl.

The last column compares the two libraries' mean log-likelihoods after the same
number of iterations (sklearn's ``lower_bounds_``, our
``log_likelihood_history_ / n``): the same trajectory, not just the same speed.

Usage::

    python benchmarks/bench_mixture.py --quick   # about 1-2 minutes, 1 thread
    python benchmarks/bench_mixture.py           # n <= 1e5, 1 and 2 threads
    python benchmarks/bench_mixture.py --full    # adds n = 1e6 (about 15 minutes)
    python benchmarks/bench_mixture.py --cases   # issue 28's three cases and the compute bound

Writes the table to benchmarks/results.md (``--output`` to change, ``--no-write``
to only print).  See benchmarks/README.md.
"""

import argparse
import gc
import math
import os
import platform
import sys
import time
import tracemalloc
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy
import sklearn
from scipy.linalg import cho_factor, cho_solve
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture as SklearnGaussianMixture
from threadpoolctl import threadpool_info, threadpool_limits

import lib
from lib.mixture import GaussianMixture, m_step

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")
HEADLINE = (100_000, 10, 10, "full")

# target: seconds of sklearn EM per long fit; repeats: 5 for configurations
# cheaper than one second per repeat, else 3
GRIDS = {
    "quick": dict(ns=(10_000, 100_000), ds=(2, 10), ks=(3, 10), threads=(1,), target=0.15, repeats=3),
    "default": dict(ns=(10_000, 100_000), ds=(2, 10, 50), ks=(3, 10), threads=(1, 2), target=0.25),
    "full": dict(ns=(10_000, 100_000, 1_000_000), ds=(2, 10, 50), ks=(3, 10), threads=(1, 2), target=0.25),
}


def make_problem(n, d, k, covariance_type, seed=0):
    """Blobs data and initial parameters: one M-step from random responsibilities."""
    rng = np.random.default_rng(seed)
    centres = 3.0 * rng.normal(size=(k, d))
    labels = rng.integers(k, size=n)
    X = centres[labels] + rng.normal(size=(n, d)) * rng.uniform(0.5, 1.5, size=(k, d))[labels]
    rows = rng.choice(n, size=min(n, 5_000), replace=False)
    resp = rng.dirichlet(np.ones(k), size=len(rows))
    return X, m_step(X[rows], resp, covariance_type, reg_covar=1e-6)


def precisions(covariances, covariance_type):
    if covariance_type == "full":
        eye = np.eye(covariances.shape[-1])
        return np.stack([cho_solve(cho_factor(c), eye) for c in covariances])
    if covariance_type == "tied":
        return cho_solve(cho_factor(covariances), np.eye(len(covariances)))
    return 1.0 / covariances


def fit_lib(X, params, covariance_type, max_iter):
    weights, means, cov = params
    return GaussianMixture(
        len(weights), covariance_type=covariance_type, init_params="given",
        weights_init=weights, means_init=means, covariances_init=cov,
        max_iter=max_iter, tol=0.0,
    ).fit(X)


def fit_sklearn(X, params, covariance_type, max_iter):
    weights, means, cov = params
    return SklearnGaussianMixture(
        len(weights), covariance_type=covariance_type, init_params="random_from_data",
        weights_init=weights, means_init=means, precisions_init=precisions(cov, covariance_type),
        max_iter=max_iter, tol=0.0, random_state=0,
    ).fit(X)


def timed(fn, *args):
    """Wall-clock and CPU seconds of fn(*args), and its result."""
    gc.collect()
    start, start_cpu = time.perf_counter(), time.process_time()
    result = fn(*args)
    return (time.perf_counter() - start, time.process_time() - start_cpu), result


def peak_bytes(fn, *args):
    """Peak bytes allocated while fn(*args) runs (numpy reports its buffers to tracemalloc).

    The data already exist when tracing starts, so this is memory *beyond the data*."""
    gc.collect()
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def memory_config(n, d, k, covariance_type):
    """Peak bytes beyond the data of a fit with one EM iteration, for lib and sklearn."""
    X, params = make_problem(n, d, k, covariance_type)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return tuple(peak_bytes(fit, X, params, covariance_type, 1) for fit in (fit_lib, fit_sklearn))


def bench_config(n, d, k, covariance_type, threads, repeats, iters, cpu_times=False):
    """Median seconds per EM iteration for lib and sklearn, and the log-likelihood gap
    (with ``cpu_times``, also lib's and sklearn's CPU seconds per iteration)."""
    X, params = make_problem(n, d, k, covariance_type)
    runs = {(name, m): [] for name in ("lib", "sklearn") for m in (iters, 1)}
    fits = {"lib": fit_lib, "sklearn": fit_sklearn}
    ll_gap = 0.0
    with threadpool_limits(limits=threads), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for r in range(repeats):
            order = ["lib", "sklearn"] if r % 2 == 0 else ["sklearn", "lib"]
            models = {}
            for m in (iters, 1):
                for name in order:  # interleaved: a, b, a, b
                    seconds, models[name, m] = timed(fits[name], X, params, covariance_type, m)
                    runs[name, m].append(seconds)
            ours, theirs = models["lib", iters], models["sklearn", iters]
            mine = ours.log_likelihood_history_[:iters] / n
            gap = np.abs(mine - theirs.lower_bounds_) / np.abs(theirs.lower_bounds_)
            ll_gap = max(ll_gap, float(gap.max()))
    def per_iter(name, clock):  # clock 0: wall, 1: CPU
        long = np.median([t[clock] for t in runs[name, iters]])
        short = np.median([t[clock] for t in runs[name, 1]])
        return float((long - short) / (iters - 1))

    cpu_ratio = per_iter("lib", 1) / per_iter("sklearn", 1)
    if cpu_times:
        return per_iter("lib", 0), per_iter("sklearn", 0), cpu_ratio, ll_gap, per_iter("lib", 1), per_iter("sklearn", 1)
    return per_iter("lib", 0), per_iter("sklearn", 0), cpu_ratio, ll_gap


def pilot(n, d, k, covariance_type, threads):
    """A quick over-estimate of sklearn's seconds per iteration (set-up included)."""
    X, params = make_problem(n, d, k, covariance_type)
    with threadpool_limits(limits=threads), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        (seconds, _), _ = timed(fit_sklearn, X, params, covariance_type, 3)
    return seconds / 3


def choose_iters(estimate, target):
    """Iterations per long fit: about `target` seconds of sklearn EM, between 4 and 41
    (3 for configurations estimated above 1.5 s per iteration)."""
    if estimate > 1.5:
        return 3
    return int(np.clip(math.ceil(target / max(estimate, 1e-6)) + 1, 4, 41))


def bound(row):
    """8 bytes x (n k + n d^2): the issue's memory budget beyond the data, for a result row."""
    n, d, k = row[:3]
    return 8.0 * (n * k + n * d * d)


def environment():
    blas = [
        f"{i.get('internal_api')} {i.get('version')} "
        f"({i.get('architecture')}, {i.get('threading_layer', 'n/a')})"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    ]
    core = {v: os.environ.get(v) for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if os.environ.get(v)}
    return [
        f"- date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        f"- numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, lib {lib.__version__}",
        f"- BLAS: {'; '.join(sorted(set(blas))) or 'unknown'}",
        f"- OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE: {core if core else 'not set'}",
        "- load average (1, 5, 15 min) at the end of the run: "
        + ", ".join(f"{x:.1f}" for x in os.getloadavg())
        + " (other processes share these cores: wall-clock times are noisy when it exceeds the thread count)",
    ]


def write_report(lines, output, no_write=False):
    """Print the Markdown report and, unless no_write, write it to output."""
    text = "\n".join(lines) + "\n"
    print()
    print(text)
    if not no_write:
        Path(output).write_text(text)
        print(f"written to {output}", file=sys.stderr)


# ---------------------------------------------------------------- issue 28: three cases and a bound

#: The three cases of issue 28 (k = 10, full covariances, one BLAS thread).
CASES = ((100_000, 10), (1_000_000, 10), (1_000_000, 50))


def _median_seconds(fn, repeats):
    """Median CPU seconds of fn() (CPU time: on a shared machine, wall-clock time includes waiting)."""
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return float(np.median(times))


def machine_rates(repeats=7):
    """One-thread GEMM rate (GFLOP/s, a 1000 x 1000 product) and exp rate (exps/s, 1e6 doubles)."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(1000, 1000)), rng.normal(size=(1000, 1000))
    x = rng.normal(size=1_000_000)
    out = np.empty_like(x)
    with threadpool_limits(limits=1):
        gemm = 2e9 / _median_seconds(lambda: A @ B, repeats) / 1e9
        exps = 1e6 / _median_seconds(lambda: np.exp(x, out=out), repeats)
    return gemm, exps


def iteration_work(n, d, k):
    """Work of one full-covariance EM iteration in the standard algorithm: (flops, exps).

    E-step: the Mahalanobis terms as one product per component of the centred data with
    the whitening factor, 2 n d^2 flops each; M-step: the responsibility-weighted outer
    products, 2 n d^2 per component as a general product; n k exponentials. (The issue's
    "4 GFLOP and 1e7 exponentials" at n = 1e6, d = 10.)
    """
    return 4.0 * n * k * d * d, float(n * k)


def lib_work(n, d, k):
    """Flops lib's fast path actually executes per iteration (lib/_fastpath.py)."""
    if d <= 20:  # features [1, x, x_a x_b]: one product for the E-step, one for the M-step
        D = 1 + d + d * (d + 1) // 2
        return 4.0 * n * D * k
    # E: B^T [1, x] in pieces of rows of the triangular factors (lib._fastpath.triangular_pieces),
    # sum over pieces [s, t) of 2 (1 + t) k w; M: whichever lib._fastpath.second_moment_kernel
    # chose on this CPU: general products [1, x]^T[: 1 + t] @ Z_p^T in the same pieces, or
    # R @ [1, x] and k symmetric rank-n updates (syrk)
    from lib._fastpath import TRIANGULAR_PIECE, moment_kernel, row_blocks

    pieces = [(s, min(s + TRIANGULAR_PIECE, d)) for s in range(0, d, TRIANGULAR_PIECE)]
    e_step = sum(2.0 * (1 + t) * k * (t - s) for s, t in pieces)
    if moment_kernel(d, row_blocks(int(n), d, k, "full")[0].stop, k) == "pieces":
        m_step = e_step  # the same pieces: 2 (1 + t) k w per row and piece
    else:
        m_step = 2.0 * (1 + d) * k + k * d * (d + 1)
    return n * (e_step + m_step)


def time_iterations(n, d, k, repeats):
    """Seconds per EM iteration (wall-clock and CPU medians) of lib and sklearn from the same start.

    Each library's iteration is timed directly, interleaved (lib, sklearn, lib, ...), on one
    BLAS thread: lib's ``lib._fastpath.em_iteration`` on its in-memory backend (the loop body
    of ``GaussianMixture.fit``) and sklearn's ``_e_step`` + ``_m_step`` (the loop body of its
    ``fit``), each from the parameters of the same first iteration.  Direct timing, not the
    difference of two fits: at n = 1e6 the set-up's noise on a shared machine exceeded an
    iteration.  Also returns the relative difference of the two log-likelihoods.
    """
    from lib import _fastpath

    X, params = make_problem(n, d, k, "full")
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk = fit_sklearn(X, params, "full", 1)  # sklearn's state after one iteration from the start
        theta = (sk.weights_, sk.means_, sk.covariances_)
        backend = _fastpath.SufficientStatistics(X, "full", k)
        walls = {"lib": [], "sklearn": []}
        cpus = {"lib": [], "sklearn": []}
        lls = {}

        def lib_iteration():
            lls["lib"], _, _ = _fastpath.em_iteration(backend, theta, 1e-6)

        def sk_iteration():
            log_prob_norm, log_resp = sk._e_step(X)
            sk._m_step(X, log_resp)
            lls["sklearn"] = log_prob_norm * n
            sk.weights_, sk.means_, sk.covariances_ = theta  # back to the same start
            sk.precisions_cholesky_ = _sk_precisions_cholesky(theta[2])

        sk_state = _sk_precisions_cholesky(theta[2])
        sk.precisions_cholesky_ = sk_state
        for _ in range(repeats):
            for name, fn in (("lib", lib_iteration), ("sklearn", sk_iteration)):
                gc.collect()
                start, start_cpu = time.perf_counter(), time.process_time()
                fn()
                walls[name].append(time.perf_counter() - start)
                cpus[name].append(time.process_time() - start_cpu)
    gap = abs(lls["lib"] - lls["sklearn"]) / abs(lls["sklearn"])
    med = {key: float(np.median(v)) for key, v in (("wl", walls["lib"]), ("ws", walls["sklearn"]),
                                                    ("cl", cpus["lib"]), ("cs", cpus["sklearn"]))}
    return med["wl"], med["ws"], med["cl"], med["cs"], gap


def _sk_precisions_cholesky(covariances):
    """scikit-learn's precisions_cholesky_ for full covariances: U = L^{-T} with Sigma = L L^T."""
    from scipy.linalg import solve_triangular

    eye = np.eye(covariances.shape[-1])
    return np.stack([solve_triangular(np.linalg.cholesky(c), eye, lower=True).T for c in covariances])


def run_cases(cases, repeats, iters_big=3, output=None, no_write=False):
    """The three cases side by side, with the compute bound estimated on this machine."""
    load_start = os.getloadavg()
    gemm, exps = machine_rates()
    print(f"load average at start: {load_start[0]:.1f}; GEMM {gemm:.1f} GFLOP/s, exp {exps / 1e6:.0f} M/s "
          "(one thread)", flush=True)
    rows = []
    for n, d in cases:
        k = 10
        flops, n_exp = iteration_work(n, d, k)
        bound = flops / (gemm * 1e9) + n_exp / exps
        reps = repeats if n <= 100_000 else iters_big
        t_lib, t_sk, c_lib, c_sk, gap = time_iterations(n, d, k, reps)
        rows.append((n, d, k, flops, lib_work(n, d, k), bound, t_lib, t_sk, c_lib, c_sk, gap))
        print(f"n={n:.0e} d={d} k={k}: lib {t_lib:.3f} s/iter (CPU {c_lib:.3f}), sklearn {t_sk:.3f} s/iter "
              f"(CPU {c_sk:.3f}), ratio {t_lib / t_sk:.2f} (CPU {c_lib / c_sk:.2f}); {flops / 1e9:.1f} GFLOP/iter "
              f"(lib executes {lib_work(n, d, k) / 1e9:.1f}), achieved {flops / c_lib / 1e9:.1f} GFLOP/s, "
              f"bound {bound:.3f} s, lib CPU / bound {c_lib / bound:.2f}; loglik rel. diff {gap:.1e}", flush=True)
    load_end = os.getloadavg()
    lines = [
        "# Issue 28's three cases: lib and scikit-learn side by side, and the compute bound",
        "",
        "Generated by `python benchmarks/bench_mixture.py --cases` (k = 10, full covariances, one BLAS "
        "thread, the same start; one EM iteration of each library timed directly, interleaved in one "
        "process, medians of 5 repeats at n = 1e5 and 3 at n = 1e6). Method: benchmarks/README.md.",
        "",
        *environment(),
        f"- load average at the start: {', '.join(f'{x:.1f}' for x in load_start)}; at the end: "
        f"{', '.join(f'{x:.1f}' for x in load_end)}",
        f"- microbenchmarks, one thread: GEMM (1000 x 1000) {gemm:.1f} GFLOP/s; np.exp {exps / 1e6:.0f} million/s",
        "",
        "Bound = (4 n k d^2 flops of the standard algorithm) / GEMM rate + (n k exponentials) / exp rate, "
        "both rates measured in CPU time by the microbenchmarks above. The ratios lib/sklearn are side by "
        "side in one run (both see the same load); achieved GFLOP/s and lib/bound use lib's CPU time, "
        "because on a shared machine wall-clock time includes time spent waiting for a core.",
        "",
        "| n | d | GFLOP/iter | lib executes GFLOP | bound s/iter | lib s/iter (CPU) | sklearn s/iter (CPU) "
        "| lib/sklearn wall | lib/sklearn CPU | achieved GFLOP/s | lib CPU/bound | loglik rel. diff |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, d, k, flops, mine, bound, t_lib, t_sk, c_lib, c_sk, gap in rows:
        lines.append(f"| {n:.0e} | {d} | {flops / 1e9:.1f} | {mine / 1e9:.1f} | {bound:.3f} "
                     f"| {t_lib:.3f} ({c_lib:.3f}) | {t_sk:.3f} ({c_sk:.3f}) | {t_lib / t_sk:.2f} | {c_lib / c_sk:.2f} "
                     f"| {flops / c_lib / 1e9:.1f} | {c_lib / bound:.2f} | {gap:.1e} |")
    write_report(lines, output, no_write)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="n <= 1e5, d <= 10, 1 thread")
    mode.add_argument("--full", action="store_true", help="the whole grid, n up to 1e6")
    parser.add_argument("--output", default=str(Path(__file__).with_name("results.md")))
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--max-config-seconds", type=float, default=None,
        help="skip a configuration whose estimated cost (both libraries, all repeats) exceeds this "
        "(default: 60, and no limit with --full)",
    )
    parser.add_argument("--cases", action="store_true",
                        help="only issue 28's three cases (n = 1e5 and 1e6, d = 10 and 50, k = 10, full) with "
                        "the compute bound; writes benchmarks/results_cases.md")
    parser.add_argument("--small-cases", action="store_true", help="with --cases: only n = 1e5, d = 10")
    args = parser.parse_args(argv)
    if args.cases:
        gc.freeze()
        output = args.output if args.output != parser.get_default("output") else str(
            Path(__file__).with_name("results_cases.md"))
        run_cases(CASES[:1] if args.small_cases else CASES, repeats=5, output=output, no_write=args.no_write)
        return 0
    if args.max_config_seconds is None:
        args.max_config_seconds = math.inf if args.full else 60.0
    gc.freeze()  # everything imported so far is permanent: the gc.collect() before each fit stays cheap
    name = "quick" if args.quick else "full" if args.full else "default"
    grid = GRIDS[name]

    rows, notes = [], []
    measured = {}  # (n, d, k, type, threads) -> sklearn seconds per iteration
    memory = {}  # (n, d, k, type) -> peak bytes beyond the data (lib, sklearn)
    t0 = time.perf_counter()
    load_start = os.getloadavg()[0]
    print(f"load average at start: {load_start:.1f}", flush=True)
    for n in grid["ns"]:
        for d in grid["ds"]:
            for k in grid["ks"]:
                for ct in COVARIANCE_TYPES:
                    for threads in grid["threads"]:
                        smaller = measured.get((n // 10, d, k, ct, threads))
                        if smaller is not None:
                            estimate = 10 * smaller  # EM is linear in n
                        else:
                            estimate = pilot(n, d, k, ct, threads)
                        iters = choose_iters(estimate, grid["target"])
                        repeats = grid.get("repeats") or (5 if estimate * (iters + 1) < 1.0 else 3)
                        # long and short fits, ~1.5 iterations of set-up each, for sklearn
                        # and for lib (counted as half of sklearn's time)
                        cost = 1.5 * repeats * (iters + 1 + 3) * estimate
                        if cost > args.max_config_seconds:
                            note = (f"n={n:.0e} d={d} k={k} {ct} threads={threads}: skipped, estimated "
                                    f"{cost:.0f} s > --max-config-seconds={args.max_config_seconds:.0f}")
                            notes.append(note)
                            print(note, flush=True)
                            continue
                        t_lib, t_sk, cpu_ratio, gap = bench_config(n, d, k, ct, threads, repeats, iters)
                        measured[(n, d, k, ct, threads)] = t_sk
                        if (n, d, k, ct) not in memory:  # the same for any number of threads
                            memory[n, d, k, ct] = memory_config(n, d, k, ct)
                        rows.append((n, d, k, ct, threads, t_lib, t_sk, cpu_ratio, gap, *memory[n, d, k, ct]))
                        print(f"n={n:>8} d={d:>2} k={k:>2} {ct:<9} threads={threads}  "
                              f"lib {1e3 * t_lib:9.2f} ms  sklearn {1e3 * t_sk:9.2f} ms  "
                              f"ratio {t_lib / t_sk:5.2f} (CPU {cpu_ratio:5.2f})  "
                              f"loglik rel. diff {gap:.1e}  ({iters} it, {repeats} rep)  "
                              f"peak MiB lib {rows[-1][9] / 2**20:.1f} sklearn {rows[-1][10] / 2**20:.1f}",
                              flush=True)
    elapsed = time.perf_counter() - t0

    lines = [
        "# EM for Gaussian mixtures: lib vs scikit-learn",
        "",
        f"Generated by `python benchmarks/bench_mixture.py{' --' + name if name != 'default' else ''}` "
        f"(grid `{name}`, medians of {grid.get('repeats') or '3 or 5'} repeats; {elapsed / 60:.1f} minutes; "
        f"load average {load_start:.1f} at the start). "
        "Method: benchmarks/README.md.",
        "",
        *environment(),
        "",
    ]
    ratios = [r[5] / r[6] for r in rows]
    if rows:
        worst = max(rows, key=lambda r: r[5] / r[6])
        lines += [
            "Summary:",
            "",
            *[
                f"- headline (n=1e5, d=10, k=10, full), {r[4]} thread(s): ratio lib/sklearn = "
                f"{r[5] / r[6]:.2f} wall-clock, {r[7]:.2f} CPU time (target <= 0.5)"
                for r in rows
                if r[:4] == HEADLINE
            ],
            f"- largest wall-clock ratio over all {len(rows)} rows (all have n >= 1e4): {max(ratios):.2f} "
            f"(n={worst[0]:.0e}, d={worst[1]}, k={worst[2]}, {worst[3]}, {worst[4]} thread(s)); "
            "target <= 1.0",
            f"- largest CPU-time ratio: {max(r[7] for r in rows):.2f}",
            f"- median wall-clock ratio: {np.median(ratios):.2f}",
            f"- largest relative difference in mean log-likelihood: {max(r[8] for r in rows):.1e}",
            "- memory beyond the data, peak during a fit, divided by 8 bytes x (n k + n d^2): "
            f"lib at most {max(r[9] / bound(r) for r in rows):.2f}, "
            f"sklearn at most {max(r[10] / bound(r) for r in rows):.2f} "
            "(target: lib O(n k + n d^2))",
            "",
        ]
    lines += [
        "| n | d | k | covariance | threads | lib ms/iter | sklearn ms/iter | ratio lib/sklearn "
        "| ratio, CPU time | loglik rel. diff | lib peak MiB | sklearn peak MiB |",
        "|---:|---:|---:|:---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, d, k, ct, threads, t_lib, t_sk, cpu_ratio, gap, mem_lib, mem_sk in rows:
        lines.append(
            f"| {n:.0e} | {d} | {k} | {ct} | {threads} | {1e3 * t_lib:.2f} | {1e3 * t_sk:.2f} "
            f"| {t_lib / t_sk:.2f} | {cpu_ratio:.2f} | {gap:.1e} | {mem_lib / 2**20:.1f} | {mem_sk / 2**20:.1f} |"
        )
    if notes:
        lines += ["", "Skipped (too slow for this run's budget; rerun with a larger "
                  "--max-config-seconds):", ""]
        lines += [f"- {note}" for note in notes]
    write_report(lines, args.output, args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
