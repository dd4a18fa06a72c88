"""The sandbox audited, not only attacked: what a student's kernel can see and write, against a short allow-list.

A probe (tests/sandbox_probe.py) runs in a kernel started exactly as the grader
starts one (grader.sandbox.Sandbox with the command line's default limits) and
reports its ids and user-namespace maps, capabilities, mounts, ``/dev``, the
environment, every folder where it can create a file, every kernel tunable and
``/proc`` file it can open for writing, every file it can read that the host
does not let every user read, and whether it can read the course key, the
overrides, the roster and the submissions planted inside a folder the sandbox
binds (the venv).  The test compares the report with the allow-lists below: a
new bind, a new bwrap version or a changed default that opens something fails
``make test``.  From the host, every process of the kernel's cgroups must run
as the sandbox's own user, never as root.
"""

import os
import pwd
import secrets
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

from grader import cli, sandbox  # noqa: E402
from grader.kernel import AGENT_SOURCE, KernelLink, KernelRunner  # noqa: E402

from sandbox_guard import require_sandbox  # noqa: E402

require_sandbox(ROOT)

VENV = os.path.realpath(sys.prefix)
# ------------------------------------------------------------ allow-lists --
# The kernel is nobody (65534) in its user namespace, with no capability and no way back.
IDS = [65534, 65534, 65534, 65534]
CAPS = {"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
        "CapBnd": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1"}
# Folders where a file can be created: the private /tmp and /dev/shm, both bounded tmpfs.
WRITABLE = ["/dev/shm", "/tmp"]
# Mount points that are not read-only: those two, the kernel's own /proc, the five devices.
RW_MOUNTS = {"/tmp", "/dev/shm", "/proc", "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
DEV = ["fd", "full", "null", "random", "shm", "stderr", "stdin", "stdout", "urandom", "zero"]
# The top of the filesystem: the system, /tmp, /dev, /proc, and the folders that lead to Python,
# the venv and the book's lib (their first path components).
SYSTEM_TOP = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "tmp", "dev", "proc"}
ENV = sorted(["PATH", "HOME", "TMPDIR", "LANG", "PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONDONTWRITEBYTECODE",
              "MPLBACKEND", "MPLCONFIGDIR", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "PYTHONHASHSEED", "JUPYTER_PLATFORM_DIRS", "IPYTHONDIR"])
ENV_OPTIONAL = {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ",
                # set by bwrap (PWD) and by the kernel itself (ipykernel, its debugger), not by the grader
                "JPY_PARENT_PID", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "PAGER", "GIT_PAGER", "TERM",
                "PYDEVD_USE_FRAME_EVAL", "PWD"}


def _tops(paths):
    return {Path(p).parts[1] for p in paths if len(Path(p).parts) > 1}


@pytest.fixture(scope="module")
def audit():
    """The probe's report, the host's view of the kernel's processes, and the planted files."""
    plant = Path(VENV) / f"gm-audit-{secrets.token_hex(4)}"  # inside a folder the sandbox binds
    plant.mkdir()
    try:
        files = {"key": plant / "course.key", "overrides": plant / "course.key.overrides.csv",
                 "roster": plant / "roster.csv", "submission": plant / "submissions" / "s01.ipynb",
                 "result": plant / "grades" / "results" / "s01.json",
                 "visible": plant / "readme.txt", "owner_only": plant / "private.txt"}
        for name, path in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"secret {name}\n")
        files["key"].chmod(0o600)
        files["owner_only"].chmod(0o600)
        hidden = [files["key"], files["overrides"], files["roster"], plant / "submissions", plant / "grades"]
        args = cli.build_parser().parse_args([str(plant / "submissions")])
        limits = cli.limits_for(args, hidden)
        box = sandbox.Sandbox(ROOT, limits, agent=AGENT_SOURCE)
        link = None
        try:
            box.start()
            link = KernelLink(box.endpoints(), box.key)
            assert link.wait_ready(60, box.alive), "the kernel did not start"
            runner = KernelRunner(box, link, limits)
            probe = (ROOT / "tests" / "sandbox_probe.py").read_text()
            walk = [VENV, str(ROOT / "lib"), "/etc"]
            asked = [str(p) for p in files.values()] + ["/etc/shadow", str(ROOT / "chapters"), "/root"]
            error = runner.run_cell(probe + f"\nreport = probe({walk!r}, {asked!r})\n")
            assert error is None, error
            kind, report = runner.describe("report")
            assert kind == "value" and isinstance(report, dict), report
            host_uids = {}
            for pid in box.cgroup.pids():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                host_uids[pid] = [line.split()[1:] for line in status.splitlines() if line.startswith("Uid:")][0]
        finally:
            if link is not None:
                link.close()
            box.kill()
        return {"report": report, "host_uids": host_uids, "files": {k: str(v) for k, v in files.items()},
                "plant": str(plant)}
    finally:
        shutil.rmtree(plant, ignore_errors=True)


def test_the_kernel_runs_as_a_host_user_that_owns_nothing(audit):
    user = pwd.getpwnam(sandbox.SANDBOX_USER)
    assert user.pw_uid != 0 and user.pw_gid != 0
    assert audit["host_uids"], "no process of the kernel found in its cgroups"
    for pid, uids in audit["host_uids"].items():  # real, effective, saved, filesystem
        assert uids == [str(user.pw_uid)] * 4, (pid, uids)
    report = audit["report"]
    assert report["ids"][:4] == IDS, report["ids"]
    assert report["uid_map"][1] != "0" and report["gid_map"][1] != "0", (report["uid_map"], report["gid_map"])
    assert {k: report["status"].get(k) for k in CAPS} == CAPS, report["status"]


def test_nothing_is_writable_but_the_bounded_tmp_and_shm(audit):
    report = audit["report"]
    assert report["walked"] > 1000, report["walked"]  # the walk did cover the filesystem
    assert report["writable"] == WRITABLE, report["writable"]
    rw = {point for point, mode, _ in report["mounts"] if mode == "rw"}
    assert rw <= RW_MOUNTS, rw - RW_MOUNTS
    sizes = {point: kind for point, _, kind in report["mounts"] if point in ("/tmp", "/dev/shm")}
    assert sizes == {"/tmp": "tmpfs", "/dev/shm": "tmpfs"}, sizes


def test_no_kernel_tunable_opens_for_writing(audit):
    report = audit["report"]
    assert report["tunables_writable"] == [], report["tunables_writable"][:20]
    assert report["proc_writable"] == [], report["proc_writable"]
    assert "sys" not in report["top"]  # no /sys at all


def test_what_the_kernel_sees(audit):
    report = audit["report"]
    assert report["dev"] == DEV, report["dev"]
    needed = SYSTEM_TOP | _tops([os.path.realpath(sys.base_prefix), VENV, str(ROOT / "lib")])
    assert set(report["top"]) <= needed, set(report["top"]) - needed
    env = [k for k in report["env"] if k not in ENV_OPTIONAL]
    assert env == ENV, (set(env) - set(ENV), set(ENV) - set(env))
    assert report["hostname"] == "sandbox"
    assert report["net"] == ["lo"] and report["network"] != "connected", (report["net"], report["network"])
    assert len(report["pids"]) <= 4, report["pids"]  # bwrap's init, the kernel (and the probe's own)


def test_no_host_file_readable_that_everyone_may_not_read(audit):
    assert audit["report"]["owner_only_readable"] == [], audit["report"]["owner_only_readable"][:20]


def test_the_key_roster_submissions_and_output_are_hidden_by_path(audit):
    seen, files = audit["report"]["secrets"], audit["files"]
    for name in ("key", "overrides", "roster", "submission", "result"):
        assert seen[files[name]] in ("read 0 bytes", "FileNotFoundError", "PermissionError"), (name, seen)
    assert seen[files["owner_only"]] == "PermissionError", seen  # not hidden, but not the sandbox's to read
    assert seen[files["visible"]].startswith("read "), seen  # the planted folder is visible: the test is real
    assert seen["/etc/shadow"] != "read", seen
    assert seen["/etc/shadow"] in ("read 0 bytes", "FileNotFoundError", "PermissionError"), seen
    assert seen[str(ROOT / "chapters")] in ("FileNotFoundError", "IsADirectoryError"), seen
    assert not audit["report"]["unshare_user"] and not audit["report"]["setuid0"]
