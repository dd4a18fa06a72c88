"""EM past one machine's memory: lib's GaussianMixture on a Dask array larger than RAM.

A seeded mixture of K = 10 Gaussians in d = 10 dimensions, generated lazily
chunk by chunk (nothing is stored: every pass regenerates its chunks), is fitted
with full covariances on a ``dask.distributed`` LocalCluster of two worker
processes on 127.0.0.1.  The default size, 3.3e8 rows x 10 float64, is 26.4 GB (24.6 GiB):
more than this machine's memory (24 GiB).  Reported: seconds
per EM iteration (each iteration is one pass over the chunks), rows per second
against lib's in-memory fit on data that fit (1e6 rows), and the workers'
peak memory (distributed's MemorySampler), which must stay bounded.

Not part of ``make test`` (it takes minutes). Run::

    .venv/bin/python benchmarks/bench_dask.py            # 3e8 rows, writes results_dask.md
    .venv/bin/python benchmarks/bench_dask.py --rows 2e7 # a quick look
    .venv/bin/python benchmarks/bench_dask.py --compare-chunks  # chunk path vs in memory, 1e6 rows
"""

import argparse
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

K, D = 10, 10
HERE = Path(__file__).resolve().parent


def true_parameters():
    rng = np.random.default_rng(2026)
    means = 6.0 * rng.normal(size=(K, D))
    factors = np.eye(D) + 0.3 * rng.normal(size=(K, D, D))  # (K, D, D): Sigma_k = A_k A_k^T
    weights = rng.dirichlet(5 * np.ones(K))
    return weights, means, factors


def make_chunk(block_info=None):
    """Rows of one chunk of the mixture, from the chunk's own seeded stream."""
    index = block_info[None]["chunk-location"][0]
    shape = block_info[None]["chunk-shape"]
    weights, means, factors = true_parameters()
    rng = np.random.default_rng([7, index])
    z = rng.choice(K, size=shape[0], p=weights)
    X = rng.standard_normal(shape)  # (m, D), then x = mu_k + A_k noise, component by component
    for k in range(K):
        rows = z == k
        X[rows] = means[k] + X[rows] @ factors[k].T
    return X


def lazy_data(rows, chunk_rows):
    import dask.array as da

    n_chunks = int(np.ceil(rows / chunk_rows))
    sizes = tuple([chunk_rows] * (n_chunks - 1) + [rows - chunk_rows * (n_chunks - 1)])
    return da.map_blocks(make_chunk, dtype=np.float64, chunks=(sizes, (D,)))


def fit(X, max_iter, seed=0):
    from lib.mixture import GaussianMixture

    gm = GaussianMixture(K, covariance_type="full", init_params="random_seeds", max_iter=max_iter, tol=0.0,
                         random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        gm.fit(X)
        seconds = time.perf_counter() - start
    # passes: 1 (initial hard assignment) + max_iter (EM) + 1 (final log-likelihood)
    return gm, seconds / (max_iter + 2)


def compare_chunks(repeats, iters, out):
    """Seconds per pass on 1e6 rows: in memory against the same rows as a chunked Dask array.

    Interleaved repeats, medians: the chunk path's cost per row next to the
    in-memory fast path's, on one core (synchronous scheduler) and with the
    threaded scheduler (both cores).
    """
    import dask
    import dask.array as da

    small = lazy_data(1_000_000, 100_000).compute(scheduler="synchronous")
    chunked = da.from_array(small, chunks=(100_000, D))
    times = {"memory": [], "synchronous": [], "threads": []}
    for _ in range(repeats):
        times["memory"].append(fit(small, iters)[1])
        for scheduler in ("synchronous", "threads"):
            with dask.config.set(scheduler=scheduler):
                times[scheduler].append(fit(chunked, iters)[1])
    med = {k: float(np.median(v)) for k, v in times.items()}
    lines = [
        "# The chunk path against the in-memory fit",
        "",
        f"`benchmarks/bench_dask.py --compare-chunks` on {platform.node() or 'this machine'}, "
        f"{time.strftime('%Y-%m-%d')}: 1e6 rows x {D}, K = {K}, full covariances, {iters} EM iterations, "
        f"chunks of 1e5 rows; medians of {repeats} interleaved repeats (seconds per pass over the data, "
        "wall-clock).",
        "",
        f"Load average (1, 5, 15 min) at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on "
        f"{os.cpu_count()} cores (other processes share them: the ratios, measured interleaved, are the figures "
        "to read).",
        "",
        "| what | seconds per pass | ratio to in memory |",
        "|---|---:|---:|",
        f"| in memory, lib's fast path, one core | {med['memory']:.3f} | 1.00 |",
        f"| Dask array, synchronous scheduler (one core) | {med['synchronous']:.3f} | "
        f"{med['synchronous'] / med['memory']:.2f} |",
        f"| Dask array, threaded scheduler (two cores) | {med['threads']:.3f} | "
        f"{med['threads'] / med['memory']:.2f} |",
    ]
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compare-chunks", action="store_true",
                        help="only the in-memory vs chunked comparison on 1e6 rows (results_dask_chunks.md)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=float, default=3.3e8)
    parser.add_argument("--chunk-rows", type=float, default=1e6)
    parser.add_argument("--iters", type=int, default=2)
    parser.add_argument("--memory-limit", default="6GiB", help="per worker")
    parser.add_argument("--out", type=Path, default=HERE / "results_dask.md")
    args = parser.parse_args()
    if args.compare_chunks:
        compare_chunks(args.repeats, args.iters, HERE / "results_dask_chunks.md")
        return
    rows, chunk_rows = int(args.rows), int(args.chunk_rows)

    import dask
    import dask.array as da
    import distributed
    from distributed.diagnostics import MemorySampler

    # In memory, for comparison: 1e6 rows, lib's fast path, one thread.
    small = lazy_data(1_000_000, 100_000).compute(scheduler="synchronous")
    _, mem_pass = fit(small, args.iters)
    # The Dask path on the same rows, threaded scheduler (chunk sums, exact path).
    with dask.config.set(scheduler="threads"):
        _, dask_small_pass = fit(da.from_array(small, chunks=(100_000, D)), args.iters)
    del small

    X = lazy_data(rows, chunk_rows)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  memory_limit=args.memory_limit, dashboard_address="127.0.0.1:0",
                                  silence_logs=40) as cluster, distributed.Client(cluster):
        sampler = MemorySampler()
        with sampler.sample("fit", interval=0.5):
            gm, big_pass = fit(X, args.iters)
        peak = max(v for _, v in sampler.samples["fit"])

    gib = X.nbytes / 2**30
    lines = [
        "# EM on a Dask array larger than memory",
        "",
        f"`benchmarks/bench_dask.py` on {platform.node() or 'this machine'} "
        f"({platform.processor() or platform.machine()}, 2 cores, 24 GiB), dask {dask.__version__}, "
        f"distributed {distributed.__version__}, {time.strftime('%Y-%m-%d')}.",
        "",
        f"Data: {rows:.3g} rows x {D} features, float64 = {gib:.1f} GiB, generated lazily in chunks of "
        f"{chunk_rows:.3g} rows (never stored); K = {K}, full covariances, init 'random_seeds', "
        f"{args.iters} EM iterations; LocalCluster of 2 worker processes, 1 thread each, memory limit "
        f"{args.memory_limit} each.",
        "",
        "| what | seconds per pass | rows per second |",
        "|---|---:|---:|",
        f"| in memory, 1e6 rows, lib's fast path | {mem_pass:.3f} | {1e6 / mem_pass:.3g} |",
        f"| Dask array in memory, 1e6 rows, threaded scheduler | {dask_small_pass:.3f} | {1e6 / dask_small_pass:.3g} |",
        f"| Dask array out of core, {rows:.3g} rows, 2 workers | {big_pass:.1f} | {rows / big_pass:.3g} |",
        "",
        f"Peak memory of the cluster during the out-of-core fit (both workers together, MemorySampler): "
        f"{peak / 2**30:.2f} GiB for {gib:.1f} GiB of data.",
        "",
        f"Final mean log-likelihood: {gm.lower_bound_:.4f}; weights found (sorted): "
        f"{np.array2string(np.sort(gm.weights_), precision=3)}; true weights (sorted): "
        f"{np.array2string(np.sort(true_parameters()[0]), precision=3)}.",
        "",
        f"A pass of the out-of-core fit also generates its chunks ({rows:.3g} x {D} random numbers), "
        "which the in-memory rows do not pay.",
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
