"""Where one EM iteration's time goes: lib's fast path, phase by phase, in CPU time.

Runs the phases of one in-memory pass (``lib._fastpath.SufficientStatistics``,
full covariances, k = 10, one BLAS thread) on the benchmark's data and prints
CPU milliseconds per iteration for each: the Cholesky factors and cancellation
bound, the features, the E-step's Mahalanobis terms, the log-sum-exp, the
M-step's sums, and the M-step's finish.  CPU time, not wall-clock time: on a
shared machine the latter includes waiting for a core.

Usage::

    python benchmarks/profile_mixture.py 1e5 10     # n, d

It profiles whichever ``lib`` is first on PYTHONPATH, so the same command on an
older checkout gives the "before" column (benchmarks/README.md).
"""

import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
import lib._fastpath as fp  # noqa: E402
from bench_mixture import make_problem  # noqa: E402


CLOCK = time.process_time


def profile(n, d, k=10, repeats=3):
    X, theta = make_problem(n, d, k, "full")
    weights, means, cov = theta
    columns = hasattr(fp, "weighted_log_prob_columns")  # the layout since issue 28: (K, m)
    times = {}

    def tick(name, start):
        times[name] = times.get(name, 0.0) + CLOCK() - start

    with threadpool_limits(limits=1):
        data = fp.SufficientStatistics(X, "full", k)
        for _ in range(repeats):
            start = CLOCK()
            data.hard(theta)
            natural = fp.natural_parameters(weights, means - data.shift, cov, "full")
            shifted = natural.shifted(natural.ceiling) if hasattr(fp, "normalise_shifted") else None
            tick("Cholesky factors, cancellation bound", start)
            acc = [None, None]
            log_lik = 0.0
            for b, _rows in enumerate(data.blocks):
                start = CLOCK()
                phi = data._phi(b)
                tick("features phi(x)", start)
                start = CLOCK()
                if columns:
                    if shifted is None:
                        R = fp.weighted_log_prob_columns(phi, natural)
                    else:  # since issue 28's second round: shifted, into a preallocated block
                        R = fp.weighted_log_prob_columns(phi, shifted, data._scratch)
                else:
                    R = fp.weighted_log_prob(phi, natural)
                tick("E-step: Mahalanobis terms", start)
                start = CLOCK()
                if shifted is not None:  # since issue 28: shifted by the ceiling, no maximum pass
                    total = fp.normalise_shifted(R)
                    log_lik += len(total) * natural.ceiling + np.log(total).sum()
                else:
                    log_lik += (fp.normalise_columns(R) if columns else fp.normalise_rows(R)).sum()
                tick("E-step: log-sum-exp", start)
                start = CLOCK()
                data._accumulate(R, phi, acc)
                tick("M-step: sums", start)
            start = CLOCK()
            stats = data._about_centres(acc, means, log_lik)
            new = fp.m_step(stats, means, n, "full", 1e-6)
            data.hard(new)
            tick("M-step: finish (and the new bound)", start)
    total = sum(times.values())
    print(f"n = {n:.0e}, d = {d}, k = {k}, full, one thread: CPU ms per iteration")
    for name, seconds in times.items():
        print(f"  {name:40s} {1e3 * seconds / repeats:9.1f}  {100 * seconds / total:5.1f}%")
    print(f"  {'total':40s} {1e3 * total / repeats:9.1f}")


if __name__ == "__main__":
    profile(int(float(sys.argv[1])), int(sys.argv[2]))
