"""Per-student variants (issue 25): seeds, generators, checks, handout, and grading by the variant.

The end-to-end tests hand out to a roster of three with a fixed test key
(tests/fixtures/variants/course.key, not a secret), solve each student's
notebooks with the book's solutions, and grade them in the sandbox.
"""

import csv
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

import lib.checks
from lib.checks import _variants

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
import student  # noqa: E402
from grader import variants  # noqa: E402
from grader.find import notebook_seeds  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "variants"
KEY = FIXTURES / "course.key"
ROSTER = ["alice", "bob", "carol"]
SPECS = _variants.registered()
# The page of each variant exercise: the page whose variant cell names it.
PAGES = {m.group(1): md.stem for md in sorted((ROOT / "chapters").glob("0*.md"))
         for m in re.finditer(r'lib\.checks\.variant\("([\w-]+)", seed=0\)', md.read_text())}
SEARCHED = range(1, 2001)  # the seeds the degeneracy search visits


# ----------------------------------------------------------------- seeds --

def test_seeds_are_keyed_per_student_and_exercise():
    key = variants.read_key(KEY)
    seed = _variants.seed_for(key, "alice", "ex-elbo-gap")
    assert seed == _variants.seed_for(key, "alice", "ex-elbo-gap")  # deterministic
    assert 1 <= seed <= _variants.MAX_SEED
    assert seed != _variants.seed_for(key, "bob", "ex-elbo-gap")
    assert seed != _variants.seed_for(key, "alice", "ex-gaussian-kl-value")
    assert seed != _variants.seed_for(bytes(reversed(key)), "alice", "ex-elbo-gap")
    # "alice" + "\0" + label cannot be confused with another split of the same characters
    assert _variants.seed_for(key, "a", "lice\0x") != _variants.seed_for(key, "alice", "x")


@pytest.mark.parametrize("key, student, message", [
    (b"short", "alice", "at least 16 bytes"), ("a string key of some length", "alice", "at least 16 bytes"),
    (b"k" * 32, "", "non-empty"), (b"k" * 32, "a\0b", "non-empty"), (b"k" * 32, 7, "non-empty")])
def test_seed_for_refuses_bad_input(key, student, message):
    with pytest.raises(ValueError, match=message):
        _variants.seed_for(key, student, "ex-elbo-gap")


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (2**63, ValueError), (1.5, TypeError), ("3", TypeError),
                                         (True, TypeError)])
def test_variant_refuses_bad_seeds(seed, error):
    with pytest.raises(error, match="seed"):
        lib.checks.variant("ex-elbo-gap", seed=seed)


def test_unknown_exercise_names_the_variant_exercises():
    with pytest.raises(ValueError, match="ex-elbo-gap"):
        lib.checks.variant("ex-bernoulli-mle", seed=1)


# ------------------------------------------------------------- generators --

def test_every_variant_exercise_has_one_variant_cell():
    assert sorted(PAGES) == sorted(SPECS)


@pytest.mark.parametrize("label", sorted(SPECS))
def test_variant_zero_is_the_book(label):
    """Variant 0 is the book's numbers: the page's variant cell, run with seed 0, prints them."""
    spec = SPECS[label]
    assert spec.params(0) == spec.book
    nb = nbformat.read(ROOT / "chapters" / f"{PAGES[label]}.ipynb", as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and f'variant("{label}", seed=0)' in c.source]
    assert len(cells) == 1, f"{label}: one variant cell with seed=0 on {PAGES[label]}"
    printed = "".join(o.get("text", "") for o in cells[0].outputs)
    assert spec.describe(spec.book) in printed


@pytest.mark.parametrize("label", sorted(SPECS))
def test_the_seed_space_has_degenerate_draws_and_the_generator_avoids_them(label):
    """A search of 2000 seeds: some first draws are degenerate, no variant handed out is."""
    spec = SPECS[label]
    reasons = [spec.degenerate(spec.first_draw(seed)) for seed in SEARCHED]
    assert any(reasons), f"{label}: the search found no degenerate draw, so it tests nothing"
    assert any(r is None for r in reasons)
    for seed in SEARCHED:
        params = spec.params(seed)
        assert spec.degenerate(params) is None, (label, seed, params)
        assert set(params) == set(spec.book)


def test_degenerate_cases_are_named():
    """Each generator's detector recognises the degenerate cases the issue names for its exercise."""
    kl = SPECS["ex-gaussian-kl-value"]
    assert "equal means" in kl.degenerate({"mu0": 1.0, "var0": 1.0, "mu1": 1.0, "var1": 4.0})
    assert "equal variances" in kl.degenerate({"mu0": 1.0, "var0": 2.0, "mu1": 0.0, "var1": 2.0})
    em = SPECS["ex-em-second-iteration"]
    assert "takes every point" in em.degenerate({"pi1": 0.85, "a": -0.5, "b": 0.5, "var1": 0.6, "var2": 0.01})
    gap = SPECS["ex-elbo-gap"]
    assert "nearly certain" in gap.degenerate({"prior1": 0.9, "delta": 3.0, "x": 4.0, "q1": 0.5})
    assert "nearly the posterior" in gap.degenerate({"prior1": 0.5, "delta": 0.5, "x": 0.25, "q1": 0.5})


@pytest.mark.parametrize("label", sorted(SPECS))
def test_any_two_students_get_different_numbers(label):
    key = variants.read_key(KEY)
    table = variants.seeds(key, ROSTER)
    spec = SPECS[label]
    numbers = {s: spec.params(table[s][label]) for s in ROSTER}
    answers = {s: spec.answer(numbers[s]) for s in ROSTER}
    for i, a in enumerate(ROSTER):
        for b in ROSTER[i + 1:]:
            assert numbers[a] != numbers[b], (label, a, b)
            assert abs(answers[a] - answers[b]) > 2 * spec.tolerance, (label, a, b)  # apart at the precision
            assert numbers[a] != spec.book


# ------------------------------------------------------------------ checks --

@pytest.mark.parametrize("label", sorted(SPECS))
def test_each_variant_is_judged_on_its_own_numbers(label):
    """The right answer of a variant passes under its seed; another variant's answer does not."""
    spec = SPECS[label]
    check = next(getattr(lib.checks, n) for n in lib.checks.__all__
                 if getattr(getattr(lib.checks, n), "exercise", None) == label)
    for seed in range(1, 40):
        mine = spec.answer(spec.params(seed))
        other = spec.answer(spec.params(seed + 1000))
        with _variants.using(label, seed):
            assert check(round(mine, 4)).passed, (label, seed)
            if abs(other - mine) > 2e-3:
                assert check(other).status == "failed", (label, seed)
    assert _variants.current_seed(label) == 0  # `using` restores


def test_the_variant_cell_sets_what_the_self_check_judges():
    spec = SPECS["ex-elbo-gap"]
    try:
        shown = lib.checks.variant("ex-elbo-gap", seed=12345)
        assert "your own numbers" in repr(shown)
        assert lib.checks.elbo_gap_by_hand(spec.answer(spec.params(12345))).passed
        assert not lib.checks.elbo_gap_by_hand(spec.answer(spec.book)).passed
        book = lib.checks.variant("ex-elbo-gap", seed=0)
        assert "the book's numbers" in repr(book) and book.prior1 == 0.25
        assert lib.checks.elbo_gap_by_hand(spec.answer(spec.book)).passed
    finally:
        lib.checks.variant("ex-elbo-gap", seed=0)


@pytest.mark.parametrize("label", sorted(SPECS))
def test_typical_mistakes_are_named_on_variants(label):
    """The check's feedback names a typical slip on a student's own numbers, not only on the book's."""
    check = next(getattr(lib.checks, n) for n in lib.checks.__all__
                 if getattr(getattr(lib.checks, n), "exercise", None) == label)
    spec = SPECS[label]
    params = spec.params(777)
    with _variants.using(label, 777):
        answer = spec.answer(params)
        named = check(answer / np.log(2) if label != "ex-em-second-iteration" else params["pi1"])
        assert named.status == "failed"
        assert ("bits" in named.message) if label != "ex-em-second-iteration" else ("theta^(1)" in named.message)
        assert f"{answer:.3f}" not in named.message


# ------------------------------------------------------------------ files --

def test_course_key_is_private_and_never_overwritten(tmp_path):
    path = tmp_path / "course.key"
    assert variants.main(["key", str(path)]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(variants.read_key(path)) == 32
    before = path.read_text()
    assert variants.main(["key", str(path)]) == 2  # refuses
    assert path.read_text() == before
    (tmp_path / "bad.key").write_text("not hex\n")
    with pytest.raises(variants.UsageError, match="64 hexadecimal"):
        variants.read_key(tmp_path / "bad.key")


@pytest.mark.parametrize("text, message", [
    ("name\nalice\n", "no `student` column"), ("student\nalice\nalice\n", "appears twice"),
    ("student\n../etc\n", "not a usable student id"), ("student\n", "no students"),
    ("student\nal ice\n", "not a usable student id")])
def test_bad_rosters_are_refused_with_the_reason(tmp_path, text, message):
    (tmp_path / "roster.csv").write_text(text)
    with pytest.raises(variants.UsageError, match=re.escape(message)):
        variants.read_roster(tmp_path / "roster.csv")


def test_roster_rows_keep_the_lms_ids_and_unknown_columns(tmp_path):
    """A spreadsheet's CSV UTF-8 (byte-order mark, quoted names, a blank last line): every column kept."""
    text = ('student, name ,lms_id,email,advisor\r\n'
            's01,"O\'Brien, Zoë ""Zo""",101,zoe@uni.example,"Dr. Y, Z"\r\ns02,Alan,102,,\r\n,,,,\r\n')
    (tmp_path / "roster.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())
    rows = variants.read_roster_rows(tmp_path / "roster.csv")
    assert [r["student"] for r in rows] == variants.read_roster(tmp_path / "roster.csv") == ["s01", "s02"]
    assert rows[0]["name"] == 'O\'Brien, Zoë "Zo"' and rows[0]["advisor"] == "Dr. Y, Z"
    assert rows[1]["sis_user_id"] == rows[1]["email"] == ""  # known columns always present
    assert set(variants.ROSTER_COLUMNS) <= set(rows[0])


def test_personalise_and_read_back():
    nb = nbformat.read(ROOT / "student" / "05_elbo_variational_em.ipynb", as_version=4)
    assert notebook_seeds(nb) == {"ex-elbo-gap": 0}
    assert variants.personalise(nb, {"ex-elbo-gap": 4242}) == ["ex-elbo-gap"]
    assert notebook_seeds(nb) == {"ex-elbo-gap": 4242}
    cell = next(c for c in nb.cells if "variant(" in c.source and c.cell_type == "code")
    cell.source = cell.source.replace("seed=4242", "seed=int('4242')")  # not a plain number: a changed cell
    assert notebook_seeds(nb) == {"ex-elbo-gap": None}


def test_reroll_changes_one_seed_and_the_handout_follows(tmp_path):
    key = tmp_path / "course.key"
    shutil.copy(KEY, key)
    (tmp_path / "roster.csv").write_text("student\n" + "\n".join(ROSTER) + "\n")
    before = variants.seeds(variants.read_key(key), ROSTER, variants.read_overrides(key))
    assert variants.main(["reroll", "--key", str(key), "--student", "bob", "--exercise", "ex-elbo-gap",
                          "--reason", "test"]) == 0
    after = variants.seeds(variants.read_key(key), ROSTER, variants.read_overrides(key))
    assert after["bob"]["ex-elbo-gap"] != before["bob"]["ex-elbo-gap"]
    changed = {(s, e) for s in ROSTER for e in SPECS if after[s][e] != before[s][e]}
    assert changed == {("bob", "ex-elbo-gap")}
    assert variants.main(["reroll", "--key", str(key), "--student", "bob", "--exercise", "ex-elbo-gap"]) == 0
    again = variants.read_overrides(key)[("bob", "ex-elbo-gap")]
    assert again not in (after["bob"]["ex-elbo-gap"], before["bob"]["ex-elbo-gap"])
    assert variants.main(["handout", "--roster", str(tmp_path / "roster.csv"), "--key", str(key), "--out",
                          str(tmp_path / "handout")]) == 0
    nb = nbformat.read(tmp_path / "handout" / "bob" / "05_elbo_variational_em.ipynb", as_version=4)
    assert notebook_seeds(nb) == {"ex-elbo-gap": again}
    assert variants.main(["reroll", "--key", str(key), "--student", "bob", "--exercise", "ex-bernoulli-mle"]) == 2


def test_a_class_of_300_gets_answers_no_classmate_can_pass_with(tmp_path):
    """The handout keeps every two students' numbers and answers apart, and its re-rolls stay put."""
    key = tmp_path / "course.key"
    shutil.copy(KEY, key)
    students = [f"s{i:03d}" for i in range(300)]
    table, changes = variants.assign(key, students)
    assert changes and all(earlier is not None for _, _, earlier in changes)  # some clashed, all were moved
    for label, spec in SPECS.items():
        answers = sorted((spec.answer(spec.params(table[s][label])), s) for s in students)
        gaps = [b[0] - a[0] for a, b in zip(answers, answers[1:])]
        assert min(gaps) > 2 * spec.tolerance, label  # nobody's number passes for another
        assert len({tuple(sorted(spec.params(table[s][label]).items())) for s in students}) == len(students)
    again, more = variants.assign(key, students)  # a second handout changes nothing
    assert again == table and more == []
    assert variants.seeds(variants.read_key(key), students, variants.read_overrides(key)) == table  # the grader's
    grown, moved = variants.assign(key, [*students, "late"])  # a late student moves nobody else
    assert {s: grown[s] for s in students} == table and {s for s, _, _ in moved} <= {"late"}


def test_make_targets_name_the_commands():
    dry = subprocess.run(["make", "-n", "-o", ".venv/.installed", "handout", "ROSTER=r.csv", "KEY=k.key"],
                         cwd=ROOT, capture_output=True, text=True)
    assert '-m grader variants handout --roster "r.csv" --key "k.key" --out "handout"' in dry.stdout, dry
    dry = subprocess.run(["make", "-n", "course-key", "KEY=k.key"], cwd=ROOT, capture_output=True, text=True)
    assert '-m grader variants key "k.key"' in dry.stdout, dry
    dry = subprocess.run(["make", "-n", "-o", ".venv/.installed", "grade", "SUBMISSIONS=s", "KEY=k.key"],
                         cwd=ROOT, capture_output=True, text=True)
    assert '--key "k.key"' in dry.stdout, dry


def test_help():
    out = subprocess.run([sys.executable, str(ROOT / "grader"), "variants", "handout", "--help"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "--roster" in out.stdout and "--key" in out.stdout


def test_every_number_answer_exercise_has_variants():
    """A starter that asks for a number (`answer = ...`) belongs to a variant exercise."""
    numeric = set()
    for md in sorted((ROOT / "chapters").glob("0*.md")):
        text = md.read_text()
        for block in re.finditer(r"```\{exercise-start\}[^\n]*\n:label: (\S+)(.*?)```\{exercise-end\}", text, re.S):
            if re.search(r":tags: \[starter\]\n\s*answer = \.\.\.", block.group(2)):
                numeric.add(block.group(1))
    assert numeric == set(SPECS)


# ------------------------------------------------------------- end to end --

def _solved(page, seeds):
    nb = student.build(ROOT / "chapters" / f"{page}.md", with_solutions=True)
    variants.personalise(nb, seeds)
    return nb


def _rows(out):
    with open(out / "grades.csv", newline="") as fh:
        return {r["student"]: r for r in csv.DictReader(fh)}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A roster of three, handed out and solved: per variant page an honest class and a class that copied."""
    tmp = tmp_path_factory.mktemp("course")
    key = tmp / "course.key"  # a copy: a handout may write re-rolls beside the key
    shutil.copy(KEY, key)
    (tmp / "roster.csv").write_text("student,name\n" + "".join(f"{s},{s.title()}\n" for s in ROSTER))
    assert variants.main(["handout", "--roster", str(tmp / "roster.csv"), "--key", str(key),
                          "--out", str(tmp / "handout")]) == 0
    table = variants.seeds(variants.read_key(key), ROSTER, variants.read_overrides(key))
    classes = [(f"honest-{page}", tmp / f"honest-{page}", []) for page in sorted(set(PAGES.values()))]
    for page in sorted(set(PAGES.values())):
        honest = tmp / f"honest-{page}"  # one folder per assignment: the file name is the student id
        honest.mkdir()
        for s in ROSTER:
            nb = _solved(page, table[s])
            # the handout is the student edition with the student's seeds: same cells, same seeds
            handed = nbformat.read(tmp / "handout" / s / f"{page}.ipynb", as_version=4)
            assert notebook_seeds(handed) == notebook_seeds(nb)
            assert [c.id for c in handed.cells] == [c.id for c in nb.cells]
            nbformat.write(nb, honest / f"{s}.ipynb")
    for label, page in sorted(PAGES.items()):
        copied = tmp / f"copied-{label}"
        copied.mkdir()
        classes.append((f"copied-{label}", copied, ["--roster", str(tmp / "roster.csv")]))
        # bob's solved handout, submitted as carol's
        nbformat.write(_solved(page, table["bob"]), copied / "carol.ipynb")
        # alice's own handout, with bob's numeric answer typed in where her solution computes hers
        nb = _solved(page, table["alice"])
        spec = SPECS[label]
        bob_value = round(spec.answer(spec.params(table["bob"][label])), 4)
        name = next(m.group(1) for c in nb.cells if c.cell_type == "code"
                    for m in [re.search(rf'(\w+) = lib\.checks\.variant\("{label}"', c.source)] if m)
        starter = next(c for c in nb.cells if c.cell_type == "code" and "starter" in c.metadata.get("tags", [])
                       and name in c.source)
        starter.source = f"answer = {bob_value}"
        nbformat.write(nb, copied / "alice.ipynb")
    results = {}
    for name, folder, extra in classes:
        out = tmp / f"out-{name}"
        proc = subprocess.run([sys.executable, str(ROOT / "grader"), "grade", str(folder), "--out", str(out),
                               "--key", str(key), "-j", "2", "--cell-timeout", "120", *extra],
                              capture_output=True, text=True, timeout=1200)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        results[name] = (out, proc.stdout)
    return {"tmp": tmp, "table": table, "results": results}


def test_handout_folders_hold_each_students_seeds(course):
    tmp, table = course["tmp"], course["table"]
    for s in ROSTER:
        pages = sorted(p.name for p in (tmp / "handout" / s).glob("*.ipynb"))
        assert pages == sorted(p.name for p in (ROOT / "student").glob("*.ipynb"))
        for label, page in PAGES.items():
            nb = nbformat.read(tmp / "handout" / s / f"{page}.ipynb", as_version=4)
            assert notebook_seeds(nb)[label] == table[s][label]


@pytest.mark.parametrize("page", sorted(set(PAGES.values())))
def test_every_student_scores_full_marks_on_their_own_notebooks(course, page):
    out, stdout = course["results"][f"honest-{page}"]
    rows = _rows(out)
    assert sorted(rows) == ROSTER
    for name, row in rows.items():
        assert row["total"] == row["max"] and float(row["max"]) > 0, (name, row)
    assert "every notebook holds its own student's seeds" in stdout


@pytest.mark.parametrize("label", sorted(SPECS))
def test_copied_numbers_score_zero_and_a_swapped_notebook_is_flagged(course, label):
    out, stdout = course["results"][f"copied-{label}"]
    rows = _rows(out)
    assert rows["alice"][label] == "0"  # bob's number on alice's variant
    assert rows["carol"][label] == "0"  # bob's notebook under carol's id
    others = [k for k in rows["alice"] if k.startswith("ex-") and k != label]
    assert all(rows["alice"][k] == "1" and rows["carol"][k] == "1" for k in others)
    with open(out / "variants.csv", newline="") as fh:
        verdicts = {(r["student"], r["exercise"]): (r["variant"], r["handed_out_to"]) for r in csv.DictReader(fh)}
    assert verdicts[("carol", label)] == ("other", "bob")
    assert verdicts[("alice", label)] == ("own", "")
    assert "carol handed in the notebook handed out to bob" in stdout
    assert "handed out to bob" in (out / "feedback" / "carol.md").read_text()
    spec, mine = SPECS[label], course["table"]["alice"][label]
    assert f"{spec.answer(spec.params(mine)):.3f}" not in (out / "feedback" / "alice.md").read_text()


def test_the_book_variants_are_the_pages_numbers():
    """Variant 0 restates the page: theta^(1) is the worked example's first M-step, KL and gap as solved."""
    from lib import datasets, mixture

    ex = datasets.worked_example()
    resp, _ = mixture.e_step(ex["X"], ex["weights"], ex["means"], ex["variances"], "spherical")
    weights, means, variances = mixture.m_step(ex["X"], resp, "spherical", reg_covar=0.0)
    book = SPECS["ex-em-second-iteration"].book
    np.testing.assert_allclose([book["pi1"], 1 - book["pi1"]], weights, atol=1e-7)
    np.testing.assert_allclose([[book["a"], 0.0], [book["b"], 0.0]], means, atol=1e-7)
    np.testing.assert_allclose([book["var1"], book["var2"]], variances, atol=1e-7)
    assert SPECS["ex-gaussian-kl-value"].answer(SPECS["ex-gaussian-kl-value"].book) == pytest.approx(0.5 * np.log(2) + 7 / 8)
    assert round(SPECS["ex-elbo-gap"].answer(SPECS["ex-elbo-gap"].book), 4) == 0.3968  # the solution's 0.3968
    assert round(SPECS["ex-em-second-iteration"].answer(book), 4) == 0.6696  # the solution's 0.6696
