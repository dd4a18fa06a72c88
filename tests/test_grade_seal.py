"""The grader sealed (issue 35): attacks on the machine, the grader's sockets, its terminal and its agent.

One class of chapter-2 submissions, graded with ``-j 2`` the way ``make grade``
runs it (as root): honest classmates under hostile file names, and each attack
of tests/grade_attacks.py's issue-35 section in its own notebook.  Every attack
must cost its author at most their own marks, reach nothing of the host (no
tunable written, no socket of the host connected, no terminal line forged),
and leave the honest classmates with full marks.  Everything lives in
temporary folders, under the grader's limits (short time limits here).
"""

import csv
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

import authorship_corpus as authorship  # noqa: E402
import grade_attacks as attacks  # noqa: E402
import student  # noqa: E402
from grader import sandbox, syscalls  # noqa: E402
from grader.common import printable_name  # noqa: E402
from grader.find import student_id  # noqa: E402

from sandbox_guard import require_sandbox  # noqa: E402

require_sandbox(ROOT)

CH2 = "02_maximum_likelihood"
LABELS = ["ex-bernoulli-mle", "ex-bernoulli-log-likelihood", "ex-smoothed-categorical-mle"]
FULL = str(len(LABELS))
# Honest notebooks under names a class may bring: bytes that are not UTF-8 (an LMS zip in Latin-1),
# a leading dash, a spreadsheet formula, a name that is a path component, a newline, a bidi override.
HONEST_NAMES = {b"s07\xff.ipynb": "s07\\xff", b"-rf.ipynb": "-rf", b"=HYPERLINK(1).ipynb": "=HYPERLINK(1)",
                b"...ipynb": "..", b"a\nb.ipynb": "a\\nb", "x\u202egnp.ipynb".encode(): "x\\u202egnp",
                b"honest.ipynb": "honest"}
# Issue 51: a name of 64 bytes that are not UTF-8 (an LMS download), 256 characters once escaped: its id
# is bounded (a digest), its whole name kept in grades.csv's `file`; and a name made of markup.
LONG_NAME = b"\xe9" * 64
MARKUP_NAME = "<img src=x onerror=alert(1)>[c](javascript:alert(1))**b**`` ` ``"  # 64 bytes, no "/"
HONEST_NAMES[LONG_NAME + b".ipynb"] = student_id(os.fsdecode(LONG_NAME))
HONEST_NAMES[MARKUP_NAME.encode() + b".ipynb"] = student_id(MARKUP_NAME)


def _solved():
    return student.build(ROOT / "chapters" / f"{CH2}.md", with_solutions=True)


def _starters(nb):
    return [c for c in nb.cells if c.cell_type == "code" and "starter" in c.metadata.get("tags", [])]


def _write(nb, folder, name):
    data = nbformat.writes(nb).encode()
    fd = os.open(os.path.join(os.fsencode(folder), name if isinstance(name, bytes) else name.encode()),
                 os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


class _Listener:
    """A unix socket on the host that counts who connects (the swapped socket files point at it)."""

    def __init__(self, path):
        self.path, self.count = str(path), 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(16)
        self.sock.settimeout(0.5)
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.count += 1
            conn.close()

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.sock.close()


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    subs = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("grades") / "out"
    scratch = tmp_path_factory.mktemp("scratch")
    listener = _Listener(tmp_path_factory.mktemp("host") / "evil.sock")

    for name in HONEST_NAMES:
        _write(_solved(), subs, name)

    def first_cell(name, code):  # an extra cell before everything, the solutions kept
        nb = _solved()
        nb.cells.insert(0, nbformat.v4.new_code_cell(code))
        _write(nb, subs, f"{name}.ipynb")

    def answers(name, *codes):  # the first answers replaced
        nb = _solved()
        for cell, code in zip(_starters(nb), codes):
            cell.source = code
        _write(nb, subs, f"{name}.ipynb")

    for name in ("fork_bomb", "ptrace", "c_extension", "shm_fill", "proc_sys", "newline_exception",
                 "hijack_honest"):
        first_cell(name, getattr(attacks, name.upper()))
    first_cell("socket_swap", attacks.SOCKET_SWAP.replace("HOST_SOCKET", listener.path))
    # the class's first two notebooks (by bytes): graded side by side at -j 2
    numbers = {"ADD_KEY": str(syscalls.number("add_key")), "REQUEST_KEY": str(syscalls.number("request_key"))}
    for name, code in (("!chan-send", attacks.CHANNEL_SEND), ("!chan-look", attacks.CHANNEL_LOOK)):
        for placeholder, number in numbers.items():
            code = code.replace(placeholder, number)
        first_cell(name, code)
    nb = _solved()
    for cell, code in zip(_starters(nb), attacks.MARKUP_ANSWERS):
        cell.source = code
    nb.cells.insert(0, nbformat.v4.new_code_cell(attacks.MARKUP_CELL))
    _write(nb, subs, "markup.ipynb")
    for name in ("big_value", "deep_reply", "huge_reply", "newline_warning", "hijack_forge"):
        answers(name, getattr(attacks, name.upper()))
    answers("odd_arrays", *attacks.ODD_ARRAYS)
    (subs / "old_format.ipynb").write_text(nbformat.writes(nbformat.convert(_solved(), 3), version=3))  # nbformat 3

    core_pattern = Path("/proc/sys/kernel/core_pattern").read_text()
    cmd = [sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out), "-j", "2",
           "--cell-timeout", "30", "--notebook-timeout", "300"]
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=1200, env={**os.environ, "TMPDIR": str(scratch)})
    finally:
        listener.close()
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    with open(out / "grades.csv", newline="", encoding="utf-8") as fh:
        rows = {r["student"]: r for r in csv.DictReader(fh)}
    return {"rows": rows, "out": out, "subs": subs, "stdout": done.stdout, "stderr": done.stderr,
            "listener": listener.count, "core_pattern": (core_pattern, Path("/proc/sys/kernel/core_pattern")
                                                          .read_text()), "scratch": scratch}


def _row(sealed, student):
    rows = sealed["rows"]
    return rows.get(student) or rows["'" + student]  # a name a spreadsheet would run is quoted


def _feedback(sealed, student):
    return (sealed["out"] / "feedback" / f"{student}.md").read_text(encoding="utf-8")


def _total(sealed, student, lost=()):
    """The total a notebook of the class earns when its attack harms nobody: full marks but for ``lost``
    and the exercises after code the grader cannot read as the student's (os, ctypes...; issue 49)."""
    row = _row(sealed, student)
    return authorship.expected_total(row, sealed["subs"] / f"{student}.ipynb", lost)


def _note(sealed, student, prefix):
    """The student's own report, quoted in the feedback's note on the first cell that raised."""
    text = _feedback(sealed, student)
    start = text.index(prefix)
    return text[start:text.index("`", start)]


# ------------------------------------------------------------- the class --

def test_honest_classmates_keep_full_marks_whatever_their_file_name(sealed):
    for raw, printable in HONEST_NAMES.items():
        row = _row(sealed, printable)
        assert row["total"] == row["max"] == FULL, (printable, row)
        assert row["file"].lstrip("'") == printable_name(os.fsdecode(raw)), row  # the whole name, as data
        assert (sealed["out"] / "feedback" / f"{printable}.md").is_file()
    # every row of the class, one per file
    assert len(sealed["rows"]) == len(os.listdir(os.fsencode(sealed["subs"])))


def test_names_are_data_in_the_csv(sealed):
    with open(sealed["out"] / "grades.csv", newline="", encoding="utf-8") as fh:
        cells = [cell for row in csv.reader(fh) for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@")], "a cell a spreadsheet would run as a formula"
    assert not [c for c in cells if "\n" in c or "\x1b" in c or "\u202e" in c]
    # the grader wrote only inside its output folder
    assert sorted(p.name for p in sealed["out"].parent.iterdir()) == ["out"]
    assert sorted(p.name for p in sealed["out"].iterdir()) == ["feedback", "grades.csv", "results", "similarity.csv", "variants.csv"]


def test_an_old_nbformat_is_refused_with_a_reason(sealed):
    row = sealed["rows"]["old_format"]
    assert row["total"] == "0", row
    assert "**Note.**" in _feedback(sealed, "old_format")


# ----------------------------------------------------------- the machine --

def test_a_fork_bomb_is_bounded(sealed):
    note = _note(sealed, "fork_bomb", "fork bomb:")
    started, refused = (int(w) for w in note.split() if w.isdigit())
    assert refused > 0 and started < 64, note  # the cgroup's process bound acted
    # it harmed nobody, its author included but for the exercises after its `os` (issue 49)
    assert _row(sealed, "fork_bomb")["total"] == _total(sealed, "fork_bomb")


def test_ptrace_sees_only_the_sandbox(sealed):
    note = _note(sealed, "ptrace", "ptrace:")
    visible = int(note.split()[2])
    assert visible <= 4, note  # bwrap's init, the kernel and its helpers: no host process
    assert _row(sealed, "ptrace")["total"] == _total(sealed, "ptrace")


def test_a_c_extension_built_at_run_time_reaches_nothing(sealed):
    note = _note(sealed, "c_extension", "c extension:")
    assert note.strip() in ("c extension: built, escapes 0", "c extension: no compiler"), note


def test_kernel_tunables_stay_unwritten(sealed):
    assert "tunables written: []" in _feedback(sealed, "proc_sys")
    before, after = sealed["core_pattern"]
    assert before == after


def test_dev_shm_and_tmp_are_bounded(sealed):
    note = _note(sealed, "shm_fill", "filled:")
    numbers = [int(w) for w in note.replace(",", " ").split() if w.isdigit()]
    shm, tmp = numbers[:2]
    assert shm <= sandbox.SHM_SIZE // 2**20 and tmp <= 512, note  # --tmp-size's default: 512 MiB
    assert "dev Read-only file system" in note, note
    assert _row(sealed, "shm_fill")["total"] == _total(sealed, "shm_fill")


# ------------------------------------------------ the grader's own channels --

def test_swapped_socket_files_are_never_followed(sealed):
    assert sealed["listener"] == 0, "the grading process connected to a socket the student chose"
    assert "connection files in /tmp/.gm were replaced" in _feedback(sealed, "socket_swap")
    assert _row(sealed, "socket_swap")["total"] == "0"


@pytest.mark.parametrize("name,total", [("big_value", "2"), ("deep_reply", "0"), ("huge_reply", "0"),
                                        ("odd_arrays", "0"), ("hijack_forge", "2")])
def test_odd_and_forged_replies_cost_their_author_only(sealed, name, total):
    row = _row(sealed, name)
    total = str(min(int(total), int(_total(sealed, name, ["ex-bernoulli-mle"]))))  # issue 49's rule too
    assert row["ex-bernoulli-mle"] == "0" and row["total"] == total, (row, _feedback(sealed, name))
    if name == "huge_reply":  # the grader's end refuses it; the kernel, deaf from then on, is stopped
        assert "stopped taking the grader's messages" in _feedback(sealed, name)


def test_a_notebook_redefining_exec_json_and_numpy_does_not_redirect_the_agent(sealed):
    row = _row(sealed, "hijack_honest")
    assert row["total"] == _total(sealed, "hijack_honest"), _feedback(sealed, "hijack_honest")


# ----------------------------------------------------- text stays text --

def test_student_text_never_forms_the_graders_lines(sealed):
    terminal = (sealed["stdout"] + sealed["stderr"]).decode("utf-8", errors="replace")
    lines = terminal.replace("\r", "\n").splitlines()
    assert not [line for line in lines if line.lstrip().startswith(("s02 handed in", "Score:"))], terminal[-2000:]
    assert not [line for line in lines if line.startswith("WARNING: the submissions folder changed")]
    assert "\x1b" not in terminal
    for name in ("newline_warning", "newline_exception"):
        text = _feedback(sealed, name)
        score = _total(sealed, name)
        assert [line for line in text.splitlines() if line.startswith("Score:")] == [f"Score: {score} / {FULL}"], text
        forged = ("s02 ", "WARNING", "| ex-bernoulli-mle | 1 / 1 | passed: forged")
        assert not [line for line in text.splitlines() if line.startswith(forged)], text
        assert "\x1b" not in text
        assert _row(sealed, name)["total"] == score
    assert "\\nScore: 3 / 3\\n" in _feedback(sealed, "newline_exception")  # shown, escaped, in the note


def test_no_file_left_in_the_scratch_folder(sealed):
    assert not list(sealed["scratch"].iterdir())


# --------------------------------------------- issue 51: kernels side by side --

def test_two_kernels_side_by_side_share_no_keyring_and_no_lock(sealed):
    sent = _note(sealed, "!chan-send", "channel send:")
    assert sent.strip() == "channel send: key Operation not permitted, locks ['Operation not permitted']", sent
    seen = _note(sealed, "!chan-look", "channel look:")
    assert seen.strip() == "channel look: keys 0, locks [], errors ['Operation not permitted']", seen
    for name in ("!chan-send", "!chan-look"):  # full marks but for what the authorship rule refuses (ctypes)
        assert _row(sealed, name)["total"] == _total(sealed, name)


def test_keys_do_not_outlive_their_kernel_at_j1(tmp_path):
    """One kernel after the other on the same slot (-j 1): what the first leaves, the second does not find."""
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    numbers = {"ADD_KEY": str(syscalls.number("add_key")), "REQUEST_KEY": str(syscalls.number("request_key"))}
    for name, code in (("a_send", attacks.CHANNEL_SEND.replace("time.sleep(8)", "time.sleep(0)")),
                       ("b_look", attacks.CHANNEL_LOOK.replace("time.monotonic() + 8", "time.monotonic() + 2"))):
        for placeholder, number in numbers.items():
            code = code.replace(placeholder, number)
        nb = _solved()
        nb.cells.insert(0, nbformat.v4.new_code_cell(code))
        _write(nb, subs, f"{name}.ipynb")
    done = subprocess.run([sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out), "-j", "1",
                           "--cell-timeout", "30"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    sent = (out / "feedback" / "a_send.md").read_text()
    assert "channel send: key Operation not permitted" in sent, sent
    seen = (out / "feedback" / "b_look.md").read_text()
    assert "channel look: keys 0, locks [], errors ['Operation not permitted']" in seen, seen


# --------------------------------------------- issue 51: markup stays text --

def test_markup_is_never_obeyed_in_the_markdown_feedback(sealed):
    """Every .md the grader wrote, read by a CommonMark reader: the markup that a file name, an exception's
    type and text, and a warning carried shows as code, never as an image, a link or bold text."""
    from markdown_it import MarkdownIt

    reader = MarkdownIt("commonmark").enable("table")
    pages = {p.stem: reader.render(p.read_text(encoding="utf-8")) for p in (sealed["out"] / "feedback").glob("*.md")}
    assert len(pages) == len(sealed["rows"])
    for name, page in pages.items():
        assert "<img" not in page and "<a " not in page and "<b>" not in page and "<em>" not in page, (name, page)
        assert page.count("<strong>") == page.count("<strong>Note.</strong>"), (name, page)
    markup = pages["markup"]
    assert markup.count("onerror=alert(1)") >= 3, markup  # the cell's exception: type and text; the answer's
    assert "&lt;img src=x onerror=alert(1)&gt;" in pages[MARKUP_NAME], pages[MARKUP_NAME]  # the title line
    assert _row(sealed, "markup")["total"] == "2", _feedback(sealed, "markup")


# ------------------------------------------------------ the key, by link --

def test_a_link_to_the_key_in_the_submissions_folder_is_never_opened(tmp_path):
    from grader import variants

    key = tmp_path / "course.key"
    variants.write_key(key)
    subs = tmp_path / "subs"
    subs.mkdir()
    _write(_solved(), subs, "honest.ipynb")
    (subs / "sneaky.ipynb").symlink_to(key)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(ROOT / "grader"), "grade", str(subs), "--out", str(out),
                           "--key", str(key), "-j", "2"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv", encoding="utf-8"))}
    assert rows["sneaky"]["total"] == "0"
    assert "not a notebook file" in (out / "feedback" / "sneaky.md").read_text()
    secret = key.read_text().strip().splitlines()[-1]
    for path in out.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    assert secret not in done.stdout + done.stderr
    assert oct(key.stat().st_mode & 0o777) == "0o600"
