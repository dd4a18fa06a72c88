"""Fit + predict_proba time: lib.discriminant against scikit-learn's QDA, LDA and GaussianNB.

Each lib model is timed against the scikit-learn estimator that fits the same
model (see tests/test_discriminant.py for the exact correspondences):

=================================  ==================================================
lib                                scikit-learn
=================================  ==================================================
``covariance_type="full"``         ``QuadraticDiscriminantAnalysis()``
``covariance_type="tied"``         ``LinearDiscriminantAnalysis(solver="lsqr")``
``covariance_type="diag"``         ``GaussianNB(var_smoothing=s)``, our ``reg_covar``
                                   set to scikit-learn's ``s * max_j Var(X[:, j])``
=================================  ==================================================

One timing is ``model.fit(X, y)`` followed by ``model.predict_proba(X)`` on the
same data.  The two libraries alternate (lib, sklearn, sklearn, lib, ...), and
the reported times are medians over the repeats.  BLAS (and OpenMP) threads
are limited with threadpoolctl.  The last column is the largest absolute
difference between the two libraries' probabilities, a reminder that the
timings compare the same computation.

Usage::

    python benchmarks/bench_discriminant.py --quick   # a few seconds, 1 thread
    python benchmarks/bench_discriminant.py           # 1 and 2 threads (about two minutes)

Appends the table to benchmarks/results_discriminant.md (``--output`` to
change, ``--no-write`` to only print).
"""

import argparse
import gc
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy
import sklearn
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.naive_bayes import GaussianNB
from threadpoolctl import threadpool_info, threadpool_limits

import lib
from lib.discriminant import GaussianDiscriminantAnalysis

VAR_SMOOTHING = 1e-9

GRIDS = {
    "quick": dict(ns=(1_000, 20_000), ds=(4, 20), ks=(3,), threads=(1,), repeats=5),
    "default": dict(ns=(1_000, 20_000, 200_000), ds=(4, 20), ks=(3, 10), threads=(1, 2), repeats=7),
}


def make_problem(n, d, k, seed=0):
    """Gaussian classes with random means and random full covariances."""
    rng = np.random.default_rng(seed)
    means = 2.0 * rng.normal(size=(k, d))
    labels = rng.integers(k, size=n)
    mixing = np.eye(d) + 0.3 * rng.normal(size=(k, d, d)) / np.sqrt(d)  # well conditioned
    X = means[labels] + np.einsum("nij,nj->ni", mixing[labels], rng.normal(size=(n, d)))
    return X, labels


def pairs(X):
    """(name, lib model, sklearn model) for the three matched models."""
    epsilon = VAR_SMOOTHING * float(np.max(np.var(X, axis=0)))
    return [
        ("QDA  full", GaussianDiscriminantAnalysis("full"), QuadraticDiscriminantAnalysis()),
        ("LDA  tied", GaussianDiscriminantAnalysis("tied"), LinearDiscriminantAnalysis(solver="lsqr")),
        ("NB   diag", GaussianDiscriminantAnalysis("diag", reg_covar=epsilon), GaussianNB(var_smoothing=VAR_SMOOTHING)),
    ]


def fit_predict(model, X, y):
    gc.collect()
    start = time.perf_counter()
    proba = model.fit(X, y).predict_proba(X)
    return time.perf_counter() - start, proba


def bench(n, d, k, threads, repeats):
    X, y = make_problem(n, d, k)
    rows = []
    with threadpool_limits(limits=threads):
        for name, ours, theirs in pairs(X):
            times = {"lib": [], "sklearn": []}
            gap = 0.0
            for r in range(repeats):
                order = [("lib", ours), ("sklearn", theirs)]
                if r % 2:
                    order.reverse()
                probas = {}
                for label, model in order:
                    seconds, probas[label] = fit_predict(model, X, y)
                    times[label].append(seconds)
                gap = max(gap, float(np.max(np.abs(probas["lib"] - probas["sklearn"]))))
            rows.append((name, n, d, k, threads, float(np.median(times["lib"])),
                         float(np.median(times["sklearn"])), gap))
    return rows


def environment():
    blas = [
        f"{i.get('internal_api')} {i.get('version')} ({i.get('threading_layer', 'n/a')})"
        for i in threadpool_info()
    ]
    return (
        f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, lib {lib.__version__}; {platform.machine()}, "
        f"{platform.system()}; BLAS: {', '.join(blas) or 'unknown'}"
    )


def table(rows):
    lines = [
        "| model | n | d | K | threads | lib (ms) | sklearn (ms) | lib / sklearn | max abs diff of proba |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, n, d, k, threads, t_lib, t_sk, gap in rows:
        lines.append(
            f"| {name.split()[0]} ({name.split()[1]}) | {n:,} | {d} | {k} | {threads} | {1e3 * t_lib:.2f} | "
            f"{1e3 * t_sk:.2f} | {t_lib / t_sk:.2f} | {gap:.1e} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small grid, one thread")
    parser.add_argument("--output", default=str(Path(__file__).with_name("results_discriminant.md")))
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    grid = GRIDS["quick" if args.quick else "default"]

    rows = []
    for threads in grid["threads"]:
        for n in grid["ns"]:
            for d in grid["ds"]:
                for k in grid["ks"]:
                    rows.extend(bench(n, d, k, threads, grid["repeats"]))
                    print(f"done n={n} d={d} K={k} threads={threads}", file=sys.stderr)

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = (
        f"\n## Fit + predict_proba, lib.discriminant vs scikit-learn ({stamp}, "
        f"{'quick' if args.quick else 'default'} grid)\n\n"
        f"{environment()}\n\n"
        f"Median of {grid['repeats']} repeats of `fit(X, y).predict_proba(X)` on the same data; "
        "ratios above 1 mean lib is slower.\n\n"
        f"{table(rows)}\n"
    )
    print(text)
    if not args.no_write:
        out = Path(args.output)
        if not out.exists():
            out.write_text(
                "# Benchmarks: lib.discriminant against scikit-learn\n\n"
                "Written by `benchmarks/bench_discriminant.py`; each run appends a section, so the last "
                "section is the latest (earlier ones show how the code got here).\n"
            )
        with out.open("a") as fh:
            fh.write(text)
        print(f"appended to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
