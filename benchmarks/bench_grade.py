"""How long the grader takes for a class: 200 notebooks of the longest chapter, on this machine.

The class is made of the longest-running student edition (chapter 5 by
default): a quarter untouched, half with the solutions pasted in, a quarter
with one exercise wrong.  It is graded with ``python -m grader grade -j N`` and the
wall-clock time is written to ``benchmarks/results_grade.md`` (quoted in the
guide, guide/grading.md).  Not part of ``make test``.

``--baseline REV`` also grades the same class with the grader as it was at
git revision REV (its ``grader``, ``tools``, ``lib``, ``student`` and ``_config.yml`` exported to a
temporary folder), right after, on the same machine, and reports both: on a
shared machine only such a paired ratio says what a change of the grader costs.

    .venv/bin/python benchmarks/bench_grade.py            # 200 notebooks, -j 2
    .venv/bin/python benchmarks/bench_grade.py --n 20     # a quick look
    .venv/bin/python benchmarks/bench_grade.py --n 40 --baseline 7851937
    .venv/bin/python benchmarks/bench_grade.py --n 20 --rounds 2 --baseline a915eba   # alternated
"""

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import student  # noqa: E402


def make_class(folder, page, n):
    solved = student.build(ROOT / "chapters" / f"{page}.md", with_solutions=True)
    untouched = nbformat.read(ROOT / "student" / f"{page}.ipynb", as_version=4)
    wrong = nbformat.from_dict(solved)
    starter = next(c for c in wrong.cells if "starter" in c.metadata.get("tags", []))
    starter.source = starter.source + "\n\nraise ValueError('a wrong answer')\n"
    for i in range(n):
        nb = untouched if i % 4 == 0 else wrong if i % 4 == 1 else solved
        nbformat.write(nb, Path(folder) / f"student{i:03d}.ipynb")


def _grader_command(tree):
    """How the grader of the checkout at ``tree`` is run: ``grader/`` since round 6, ``tools/grade.py`` before."""
    if (tree / "grader" / "__main__.py").is_file():
        return [sys.executable, str(tree / "grader"), "grade"]
    return [sys.executable, str(tree / "tools" / "grade.py")]


def _time_grader(tree, subs, out, jobs):
    start = time.perf_counter()
    done = subprocess.run([*_grader_command(tree), str(subs), "--out", str(out), "-j", str(jobs)],
                          capture_output=True, text=True, cwd=tree)  # as make runs it: from its checkout
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(done.stderr)
    return seconds, done


def _load():
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--page", default="05_elbo_variational_em")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results_grade.md")
    parser.add_argument("--baseline", help="also time the grader of this git revision, on the same class")
    parser.add_argument("--rounds", type=int, default=1,
                        help="grade the class this many times with each grader, alternating (default 1)")
    args = parser.parse_args()
    baseline = None
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "submissions"
        subs.mkdir()
        make_class(subs, args.page, args.n)
        load_before = _load()
        tree = None
        if args.baseline:  # the grader of that revision, with its lib and student editions, in a folder of its own
            tree = Path(tmp) / "baseline-tree"
            tree.mkdir()
            parts = ["tools", "lib", "student", "_config.yml"]  # the book's URL: _config.yml
            if subprocess.run(["git", "cat-file", "-e", f"{args.baseline}:grader"], cwd=ROOT,
                              capture_output=True).returncode == 0:
                parts.append("grader")  # the grader's own package since round 6
            archive = subprocess.run(["git", "archive", args.baseline, *parts],
                                     cwd=ROOT, check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        seconds, baseline = 0.0, (0.0 if tree else None)
        for r in range(args.rounds):  # alternated: a load that drifts weighs on both graders alike
            took, done = _time_grader(ROOT, subs, Path(tmp) / f"grades-{r}", args.jobs)
            seconds += took
            rows = (Path(tmp) / f"grades-{r}" / "grades.csv").read_text().splitlines()[1:]
            if tree:
                baseline += _time_grader(tree, subs, Path(tmp) / f"baseline-{r}", args.jobs)[0]
        seconds /= args.rounds
        baseline = baseline / args.rounds if tree else None
        load_after = _load()
    lines = [
        "# Grading a class",
        "",
        f"`benchmarks/bench_grade.py` on {platform.machine()}, {os.cpu_count()} cores, "
        f"{time.strftime('%Y-%m-%d')}: {args.n} notebooks of `{args.page}` (a quarter untouched, half "
        f"solved, a quarter with one wrong answer), `python -m grader grade -j {args.jobs}` (each kernel in its sandbox)"
        + (f", {args.rounds} rounds alternating with the baseline (means below)." if args.rounds > 1 else "."),
        "",
        f"- {len(rows)} notebooks graded in {seconds:.0f} s: {seconds / args.n:.1f} s per notebook, "
        f"{seconds * args.jobs / args.n:.1f} s of one core each (kernel start, the chapter's code, the checks).",
    ]
    if baseline is not None:
        lines.append(f"- The same class with the grader of `{args.baseline}`, just after: "
                     f"{baseline:.0f} s, {baseline / args.n:.1f} s per notebook; this grader takes "
                     f"{seconds / baseline:.2f}x its time.")
    lines += [f"- Load average (1 min) before and after: {load_before:.1f}, {load_after:.1f}.", "",
              *[line for line in done.stdout.splitlines() if line.startswith("  ex-") and "%" in line][-1:]]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
