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

The seccomp filter (grader/syscalls.py) is compared with Docker's default
profile and the calls issue 51 names, and seen refusing them inside a kernel;
two kernels started side by side, each as its slot's own host user, try every
channel Linux has between two processes (keyring, locks on a file both can
read, System V and POSIX IPC, an abstract socket, /tmp and /dev/shm): the
one finds nothing of what the other left, and no lock can be taken. Keys
that a slot's user holds are gone once its kernel ends (the purge).
"""

import os
import pwd
import secrets
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

from grader import grade as cli, sandbox, syscalls  # noqa: E402
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


# Calls the filter must refuse (EPERM) whatever Docker's profile says: the ones Docker's documentation
# lists as blocked by its default profile and still refused by it (docs.docker.com/engine/security/seccomp,
# "Significant syscalls blocked by the default profile"; name_to_handle_at, adjtimex and clock_adjtime
# it allows today), the keyring's (issue 51) and flock.
REFUSED = ["acct", "add_key", "bpf", "clock_settime", "delete_module", "finit_module", "get_mempolicy",
           "init_module", "ioperm", "iopl", "kcmp", "kexec_file_load", "kexec_load", "keyctl", "lookup_dcookie",
           "mbind", "mount", "move_pages", "open_by_handle_at", "perf_event_open",
           "pivot_root", "process_vm_readv", "process_vm_writev", "ptrace", "quotactl", "reboot", "request_key",
           "set_mempolicy", "setns", "settimeofday", "swapon", "swapoff", "sysfs", "umount2", "unshare", "uselib",
           "userfaultfd", "ustat", "flock"]


def _docker_refused():
    """The calls Docker's default profile (as vendored) never allows a container with no capability on amd64."""
    import json

    profile = json.loads(syscalls.PROFILE.read_text())
    named, allowed = set(), set()
    for rule in profile["syscalls"]:
        named |= set(rule["names"])
        includes, excludes = rule.get("includes", {}), rule.get("excludes", {})
        applies = (not includes.get("caps") and not includes.get("minKernel")
                   and "amd64" in includes.get("arches", ["amd64"]) and "amd64" not in excludes.get("arches", []))
        if applies and rule["action"] == "SCMP_ACT_ALLOW":
            allowed |= set(rule["names"])  # with arguments or not: those with some allowed forms are not counted
    return sorted(named - allowed)


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
            numbers = {name: syscalls.number(name) for name in [*REFUSED, "clone3"] if syscalls.number(name) is not None}
            error = runner.run_cell(probe + f"\nreport = probe({walk!r}, {asked!r})\nreport['calls'] = calls({numbers!r})\n")
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


# ------------------------------------------------------------ the filter --

def test_the_filter_refuses_what_docker_refuses_and_the_channels():
    docker = _docker_refused()
    assert len(docker) > 40 and "bpf" in docker and "unshare" in docker, docker  # the profile was read
    assert syscalls.denied(docker) == docker, set(docker) - set(syscalls.denied(docker))
    assert syscalls.denied(REFUSED) == REFUSED, set(REFUSED) - set(syscalls.denied(REFUSED))
    assert syscalls.denied(["read", "write", "openat", "mmap", "futex", "epoll_wait", "clone"]) == []


def test_refused_calls_fail_inside_the_kernel(audit):
    calls = audit["report"]["calls"]
    assert calls.pop("clone3") == "ENOSYS", calls  # Docker's answer: glibc then uses clone
    assert calls == {name: "EPERM" for name in calls}, calls
    assert len(calls) >= 35, calls
    assert audit["report"]["status"]["Seccomp"] == "2", audit["report"]["status"]  # a filter, for every process


@pytest.fixture(scope="module")
def two_kernels():
    """Two kernels side by side, as -j 2 runs them: the first plants a message, the second looks for it."""
    args = cli.build_parser().parse_args([str(ROOT / "student")])
    probe = (ROOT / "tests" / "sandbox_probe.py").read_text()
    numbers = {n: syscalls.number(n) for n in ("add_key", "keyctl", "request_key")}
    shared, tag = str(ROOT / "lib" / "__init__.py"), f"gm51-{secrets.token_hex(4)}"
    boxes, links, runners, uids = [], [], [], []
    try:
        for slot in (0, 1):
            limits = dict(cli.limits_for(args, []), slot=slot)
            box = sandbox.Sandbox(ROOT, limits, agent=AGENT_SOURCE)
            boxes.append(box)
            box.start()
            links.append(KernelLink(box.endpoints(), box.key))
            assert links[-1].wait_ready(60, box.alive), "a kernel did not start"
            runners.append(KernelRunner(box, links[-1], limits))
            uids.append({Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0]
                         for pid in box.cgroup.pids() if Path(f"/proc/{pid}").exists()})
        first, second = runners
        assert first.run_cell(probe + f"\nplanted = plant({tag!r}, {numbers!r}, {shared!r})\n") is None
        assert second.run_cell(probe + f"\nfound = look({tag!r}, {numbers!r}, {shared!r})\n") is None
        planted, found = first.describe("planted")[1], second.describe("found")[1]
    finally:
        for link in links:
            link.close()
        for box in boxes:
            box.kill()
    return {"planted": planted, "found": found, "uids": uids}


def test_two_kernels_run_as_two_host_users(two_kernels):
    first, second = two_kernels["uids"]
    assert len(first) == len(second) == 1 and first != second, two_kernels["uids"]
    assert {int(u) for u in first | second} == {sandbox.sandbox_user(0)[0], sandbox.sandbox_user(1)[0]}


def test_no_channel_between_two_kernels(two_kernels):
    planted, found = two_kernels["planted"], two_kernels["found"]
    refused = {name: "Operation not permitted" for name in ("flock", "F_SETLK", "F_GETLK", "F_OFD_SETLK",
                                                           "F_OFD_GETLK", "F_SETLEASE")}
    assert planted["add_key"] == "EPERM" and planted["locks"] == refused, planted
    assert planted["shmget"] == planted["msgget"] == planted["semget"] == planted["mq_open"] == "ok", planted
    assert found["request_key"] == found["keyctl_read_user_keyring"] == "EPERM", found
    assert found["locks"] == refused and found["proc_locks"] == [], found
    assert found["shmget"] == found["msgget"] == found["semget"] == found["mq_open"] == "ENOENT", found
    assert found["abstract"] in ("ECONNREFUSED", "ENOENT") and found["files"] == [], found


def test_keys_a_slots_user_holds_are_purged():
    """The second wall behind the filter: a key that a slot's host user holds is gone after purge_keys."""
    import ctypes

    uid = sandbox.sandbox_user(sandbox.MAX_SLOTS - 1)[0]  # the last slot: no test grades there
    numbers = {n: syscalls.number(n) for n in ("add_key", "keyctl")}

    def as_user(make):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                libc = ctypes.CDLL(None, use_errno=True)
                if make:
                    found = libc.syscall(numbers["add_key"], b"user", b"gm51-left", b"hidden", 6, ctypes.c_int(-4))
                else:  # KEYCTL_SEARCH (10) in the user keyring
                    found = libc.syscall(numbers["keyctl"], 10, ctypes.c_int(-4), b"user", b"gm51-left", 0)
                os.write(w, b"found" if found >= 0 else b"none")
            finally:
                os._exit(0)
        os.close(w)
        os.waitpid(pid, 0)
        with os.fdopen(r, "rb") as fh:
            return fh.read().decode()

    assert as_user(True) == "found"  # a key left in the user's keyring...
    assert as_user(False) == "found"  # ...which another process of that user finds
    sandbox.purge_keys(uid)
    assert as_user(False) == "none"
