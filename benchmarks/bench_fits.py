"""Whole fits, on every OpenBLAS kernel set: lib.mixture.GaussianMixture against scikit-learn's.

Issue 41.  For each of the three cases (n = 1e5 and 1e6 at d = 10, n = 1e6 at
d = 50; k = 10, full covariances, one BLAS thread) both libraries fit from the
same given parameters with ``tol=0`` and ``max_iter`` = 3 and 10, interleaved
in one process (lib, sklearn, sklearn, lib, ...).  A fit's time includes
everything a user waits for: validation, set-up (lib's centred copy and
buffers), the initialisation from the given parameters, the iterations and the
final E-step.  Reported, as ratios lib / sklearn of CPU time (on a shared
machine wall-clock time includes waiting for a core):

- fit 3, fit 10: the complete fits of 3 and 10 iterations;
- per iteration: the marginal time, (fit 10 - fit 3) / 7, of each library.

OpenBLAS reads ``OPENBLAS_CORETYPE`` when it loads, so each kernel set runs in
its own subprocess (this script with ``--worker``); the parent prints one table
with a row per kernel set and case.  The default sets are the machine's own
(none forced), ``Haswell`` (AVX2), ``SkylakeX`` (AVX-512, where the CPU has it)
and ``Prescott`` (SSE3, any x86-64), less the one the default already is.  numpy's and scipy's OpenBLAS both follow
the variable (the ``BLAS`` column names the kernels each reported).

Usage::

    python benchmarks/bench_fits.py                       # the three cases, default sets
    python benchmarks/bench_fits.py --small               # n = 1e5, d = 10 only (a minute)
    python benchmarks/bench_fits.py --coretypes default,Prescott --repeats 3

Writes benchmarks/results_fits.md (``--output``, ``--no-write``).
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_info, threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_mixture import (  # noqa: E402
    CASES, environment, fit_lib, fit_sklearn, machine_rates, make_problem, timed, write_report,
)

SHORT, LONG = 3, 10
K = 10


def has_avx512():
    try:
        return " avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def default_coretypes():
    """default, then Haswell, SkylakeX (where the CPU has AVX-512) and Prescott, less the one that
    the default already is (this process's OpenBLAS, unless OPENBLAS_CORETYPE forces one)."""
    own = None
    if "OPENBLAS_CORETYPE" not in os.environ:
        own = next((i.get("architecture") for i in threadpool_info() if i.get("user_api") == "blas"), None)
    sets = ["default", "Haswell"] + (["SkylakeX"] if has_avx512() else []) + ["Prescott"]
    return [core for core in sets if core == "default" or core != own]


def time_case(n, d, repeats):
    """Median CPU and wall seconds of fits of SHORT and LONG iterations, both libraries, interleaved."""
    X, params = make_problem(n, d, K, "full")
    fits = {"lib": fit_lib, "sklearn": fit_sklearn}
    cpu = {(name, m): [] for name in fits for m in (SHORT, LONG)}
    wall = {(name, m): [] for name in fits for m in (SHORT, LONG)}
    gap = 0.0
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for r in range(repeats):
            order = ("lib", "sklearn") if r % 2 == 0 else ("sklearn", "lib")
            models = {}
            for m in (SHORT, LONG):
                for name in order:
                    (w, c), models[name, m] = timed(fits[name], X, params, "full", m)
                    cpu[name, m].append(c)
                    wall[name, m].append(w)
            ours, theirs = models["lib", LONG], models["sklearn", LONG]
            mine = ours.log_likelihood_history_[:LONG] / n
            gap = max(gap, float(np.max(np.abs(mine - theirs.lower_bounds_) / np.abs(theirs.lower_bounds_))))
    med = {key: float(np.median(v)) for key, v in cpu.items()}
    med_wall = {key: float(np.median(v)) for key, v in wall.items()}
    return {
        "n": n, "d": d, "repeats": repeats, "gap": gap,
        "cpu": {f"{name}{m}": med[name, m] for name, m in med},
        "wall": {f"{name}{m}": med_wall[name, m] for name, m in med_wall},
    }


def worker(cases, repeats_small, repeats_big):
    """Run the cases under this process's kernels; print one JSON line per case."""
    archs = sorted({i.get("architecture") or "?" for i in threadpool_info() if i.get("user_api") == "blas"})
    gemm, _ = machine_rates()  # this kernel set's one-thread GEMM rate (1000 x 1000, CPU time)
    for n, d in cases:
        row = time_case(n, d, repeats_small if n <= 100_000 else repeats_big)
        row["kernel"] = moment_kernel_of(n, d)
        row["blas"] = "/".join(archs)
        row["gemm"] = gemm
        row["load"] = os.getloadavg()[0]
        print(json.dumps(row), flush=True)


def moment_kernel_of(n, d):
    """The M-step kernel lib's fits chose under this process's BLAS kernels (the Cholesky route,
    d > 20: 'syrk' or 'pieces', measured once per process; cached, so this reads the fits' choice)."""
    from lib import _fastpath

    if not _fastpath.cholesky_route("full", d):
        return "-"
    with threadpool_limits(limits=1):
        return _fastpath.moment_kernel(d, _fastpath.row_blocks(n, d, K, "full")[0].stop, K)


def code_version():
    """The commit of the checkout that was measured, marked when the work tree had changes."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "lib", "benchmarks"],
                               cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + (" with uncommitted changes to lib/ or benchmarks/" if dirty else "")


def ratios(row):
    c = row["cpu"]
    marginal_lib = (c[f"lib{LONG}"] - c[f"lib{SHORT}"]) / (LONG - SHORT)
    marginal_sk = (c[f"sklearn{LONG}"] - c[f"sklearn{SHORT}"]) / (LONG - SHORT)
    return (c[f"lib{SHORT}"] / c[f"sklearn{SHORT}"], c[f"lib{LONG}"] / c[f"sklearn{LONG}"],
            marginal_lib / marginal_sk, marginal_lib, marginal_sk)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--coretypes", default=None,
                        help="comma-separated OPENBLAS_CORETYPE values ('default': none forced); "
                        f"default: {','.join(default_coretypes())}")
    parser.add_argument("--small", action="store_true", help="only n = 1e5, d = 10")
    parser.add_argument("--cases", default=None, help="comma-separated n:d pairs, e.g. 1e5:10,1e6:50")
    parser.add_argument("--repeats", type=int, default=3, help="repeats at n <= 1e5 (default 3)")
    parser.add_argument("--repeats-big", type=int, default=1,
                        help="repeats at n = 1e6 (default 1: a repeat at d = 50 is ~3 minutes of sklearn)")
    parser.add_argument("--output", default=str(Path(__file__).with_name("results_fits.md")))
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cases:
        cases = [(int(float(a)), int(b)) for a, b in (p.split(":") for p in args.cases.split(","))]
    else:
        cases = list(CASES[:1] if args.small else CASES)
    if args.worker:
        worker(cases, args.repeats, args.repeats_big)
        return 0

    coretypes = args.coretypes.split(",") if args.coretypes else default_coretypes()
    case_arg = ",".join(f"{n}:{d}" for n, d in cases)
    load_start = os.getloadavg()
    t0 = time.perf_counter()
    results = []
    for core in coretypes:
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        env.pop("OPENBLAS_CORETYPE", None)
        if core != "default":
            env["OPENBLAS_CORETYPE"] = core
        command = [sys.executable, __file__, "--worker", "--cases", case_arg,
                   "--repeats", str(args.repeats), "--repeats-big", str(args.repeats_big)]
        proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
        for line in proc.stdout:
            row = json.loads(line)
            row["coretype"] = core
            results.append(row)
            f3, f10, per, ml, ms = ratios(row)
            print(f"{core:>9} ({row['blas']}, GEMM {row['gemm']:.1f} GFLOP/s) n={row['n']:.0e} d={row['d']}: "
                  f"fit {SHORT} {f3:.2f}, "
                  f"fit {LONG} {f10:.2f}, per iteration {per:.2f} (lib {ml:.3f} s, sklearn {ms:.3f} s); "
                  f"loglik rel. diff {row['gap']:.1e}; load {row['load']:.1f}", flush=True)
        if proc.wait() != 0:
            raise SystemExit(f"the worker under OPENBLAS_CORETYPE={core} failed")
    load_end = os.getloadavg()

    lines = [
        "# Whole fits and marginal iterations under several OpenBLAS kernel sets (issue 41)",
        "",
        f"Generated by `python benchmarks/bench_fits.py` ({(time.perf_counter() - t0) / 60:.1f} minutes). "
        f"k = {K}, full covariances, one BLAS thread, both libraries from the same given parameters with "
        f"tol = 0; fits of {SHORT} and {LONG} iterations interleaved in one process per kernel set; CPU "
        f"time, medians of {args.repeats} repeats at n = 1e5 and {args.repeats_big} at n = 1e6. A fit's "
        "time includes validation, set-up, initialisation and the final E-step; per iteration = "
        f"(fit {LONG} - fit {SHORT}) / {LONG - SHORT}. Ratios are lib / scikit-learn (goal: at most 0.20 "
        "under the default set, below 1 under every set). GEMM: the kernel set's one-thread rate on a "
        "1000 x 1000 product (CPU time). M-step kernel: what lib measured fastest for the second "
        "moments at d > 20 under that kernel set (`lib._fastpath.second_moment_kernel`). "
        "Method: benchmarks/README.md.",
        "",
        *environment()[:4],
        f"- code: commit {code_version()}",
        f"- load average (1, 5, 15 min) at the start: {', '.join(f'{x:.1f}' for x in load_start)}; at the end: "
        f"{', '.join(f'{x:.1f}' for x in load_end)} (2 cores, shared with other sessions)",
        "",
        f"| OPENBLAS_CORETYPE | BLAS kernels | GEMM GFLOP/s | n | d | lib fit {SHORT} s | sklearn fit {SHORT} s | fit {SHORT} ratio "
        f"| lib fit {LONG} s | sklearn fit {LONG} s | fit {LONG} ratio | lib s/iter | sklearn s/iter "
        "| per-iteration ratio | loglik rel. diff | M-step kernel |",
        "|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|",
    ]
    for row in results:
        c = row["cpu"]
        f3, f10, per, ml, ms = ratios(row)
        lines.append(
            f"| {row['coretype']} | {row['blas']} | {row['gemm']:.1f} | {row['n']:.0e} | {row['d']} | {c[f'lib{SHORT}']:.3f} "
            f"| {c[f'sklearn{SHORT}']:.3f} | {f3:.2f} | {c[f'lib{LONG}']:.3f} | {c[f'sklearn{LONG}']:.3f} "
            f"| {f10:.2f} | {ml:.3f} | {ms:.3f} | {per:.2f} | {row['gap']:.1e} | {row.get('kernel', '-')} |")
    worst = max(max(ratios(r)[:3]) for r in results)
    lines += ["", f"Largest ratio in this table: {worst:.2f}."]
    write_report(lines, args.output, args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
