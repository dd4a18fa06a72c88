"""One student's kernel in a sandbox: bubblewrap for what it sees, cgroups for what it uses.

Used by the grader (``grader/``).  A :class:`Sandbox` starts an IPython kernel

* as a host user that owns nothing, ``gm-sandbox`` (made by
  ``tools/install_sandbox.sh``), never as the grader's root: the process that
  starts ``bwrap`` enters the kernel's cgroups as root, then drops to that
  user (``setresuid``) and runs bwrap unprivileged.  Inside, the kernel is
  ``nobody`` (65534) in its own user namespace, which maps to ``gm-sandbox``
  on the host; it has no capability and cannot make another user namespace
  (``--disable-userns``).  File permissions are that user's: what only its
  owner may read (``/etc/shadow``, the course key) is unreadable even where a
  bind would show it;
* in its own PID, network, IPC and UTS namespaces: no network, no view of
  other processes, and every process it starts dies with it;
* on a filesystem that holds only what the kernel needs, read-only: the
  system (``/usr``, ``/etc``, ...), Python and the venv, and the book's
  ``lib`` folder.  Not the book's sources or solutions, not the submissions,
  not the grader's output, the key, its overrides or the roster (hidden by
  path, files as well as folders, should they lie inside a bound folder), not
  the other kernels.  ``/proc/sys`` is read-only, ``/sys`` is absent, ``/dev``
  holds five devices and is read-only.  Its only writable places are a
  private ``/tmp`` and ``/dev/shm``, both of bounded size, both counted
  (like every page the kernel fills) against its memory cgroup;
* in cgroups that bound the memory, the number of processes and the CPU share
  of the whole process tree (cgroup v1 or v2, which needs root).

Folders bwrap must bind but that the sandbox's user may not walk through
(a Python under ``/root/.pyenv``) are shown to it in a private mount namespace
of the starting process only: a tmpfs over the closed folder, and a bind of
each path the kernel needs inside it (:func:`_staging`).

The grader talks to the kernel over ZeroMQ sockets that the kernel creates
inside its own ``/tmp``.  The grader opens them once, before any student code
runs, without following a symbolic link, and from then on connects through its
own file descriptors (``ipc:///proc/self/fd/N``): a socket file the student
later swaps for a link is never followed, and :meth:`Sandbox.tampered` says
so.  Nothing the kernel prints is read.  :meth:`Sandbox.kill` kills the
sandbox's first process, which takes every other process of its PID namespace
with it, then empties and removes its cgroups.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import pwd
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

NOBODY = 65534
SANDBOX_USER = "gm-sandbox"
CGROUP_ROOT = Path("/sys/fs/cgroup")
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
DEVICES = ("null", "zero", "full", "random", "urandom")
SHM_SIZE = 64 * 2**20
MAX_SLOTS = 16  # host users made by tools/install_sandbox.sh: one per kernel graded at the same time
KEYCTL_CLEAR = 7  # keyctl(2)'s command that empties a keyring
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5
SOCKETS = {"shell": "k-1", "control": "k-4"}  # the kernel's files in /tmp/.gm the grader connects to

KERNEL_LAUNCHER = """\
import os, resource, sys
os.closerange(3, 4096)  # nothing of the grader's (pipes, directory handles) stays open
memory, file_size, cpu = (int(a) for a in sys.argv[1:4])
agent = sys.argv[4]
del sys.argv[1:5]
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
os.makedirs("/tmp/run", exist_ok=True)
os.chdir("/tmp/run")
# The grader's agent, set up before the kernel runs any cell: it keeps its own references.
_gm_agent = {"__name__": "gm_agent", "__builtins__": dict(vars(__import__("builtins")))}
exec(compile(agent, "<grader agent>", "exec"), _gm_agent)
del agent
from ipykernel.kernelapp import IPKernelApp
_gm_app = IPKernelApp.instance()
_gm_app.initialize()
_gm_agent["install"](_gm_app.kernel)
del _gm_agent
_gm_app.start()
"""


class SandboxUnavailable(RuntimeError):
    """This machine cannot sandbox a kernel (no bwrap, no cgroups, not root...)."""


# ----------------------------------------------------------------- cgroups --

def _cgroup_layout():
    """'v1', 'v2' or None: which cgroup hierarchy this process may create groups in."""
    if os.geteuid() != 0:
        return None
    v1 = [CGROUP_ROOT / c for c in ("memory", "pids", "cpu")]
    if all((p / "cgroup.procs").exists() and os.access(p, os.W_OK) for p in v1):
        return "v1"
    if (CGROUP_ROOT / "cgroup.controllers").exists() and os.access(CGROUP_ROOT, os.W_OK):
        wanted = {"memory", "pids", "cpu"}
        if wanted <= set((CGROUP_ROOT / "cgroup.controllers").read_text().split()):
            return "v2"
    return None


class Cgroup:
    """The cgroups of one sandbox: memory (RAM + swap), process count, one core at most."""

    def __init__(self, memory, processes, layout=None):
        self.layout = layout or _cgroup_layout()
        if self.layout is None:
            raise SandboxUnavailable("no writable cgroup hierarchy (the grader must run as root)")
        name = f"gm-grade-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        if self.layout == "v1":
            self.dirs = {c: CGROUP_ROOT / c / "gm-grade" / name for c in ("memory", "pids", "cpu")}
            for d in self.dirs.values():
                d.mkdir(parents=True)
            _write(self.dirs["memory"] / "memory.limit_in_bytes", memory)
            if (self.dirs["memory"] / "memory.memsw.limit_in_bytes").exists():
                _write(self.dirs["memory"] / "memory.memsw.limit_in_bytes", memory)
            _write(self.dirs["memory"] / "memory.swappiness", 0, missing_ok=True)
            _write(self.dirs["pids"] / "pids.max", processes)
            _write(self.dirs["cpu"] / "cpu.cfs_period_us", 100_000)
            _write(self.dirs["cpu"] / "cpu.cfs_quota_us", 100_000)
        else:
            parent = CGROUP_ROOT / "gm-grade"
            parent.mkdir(exist_ok=True)
            for level in (CGROUP_ROOT, parent):
                _write(level / "cgroup.subtree_control", "+memory +pids +cpu", missing_ok=True)
            d = parent / name
            d.mkdir()
            self.dirs = {"all": d}
            _write(d / "memory.max", memory)
            _write(d / "memory.swap.max", 0, missing_ok=True)
            _write(d / "pids.max", processes)
            _write(d / "cpu.max", "100000 100000")

    def procs_files(self):
        return [d / "cgroup.procs" for d in self.dirs.values()]

    def pids(self):
        found = set()
        for f in self.procs_files():
            try:
                found |= {int(p) for p in f.read_text().split()}
            except OSError:
                pass
        return found

    def oom_killed(self):
        """True when the memory bound killed a process of this group."""
        try:
            if self.layout == "v1":
                text = (self.dirs["memory"] / "memory.oom_control").read_text()
                return any(line.split()[-1] != "0" for line in text.splitlines() if line.startswith("oom_kill "))
            text = (self.dirs["all"] / "memory.events").read_text()
            return any(line.split()[-1] != "0" for line in text.splitlines() if line.startswith("oom_kill "))
        except (OSError, IndexError):
            return False

    def destroy(self, timeout=10.0):
        """Kill whatever is left in the groups, then remove them."""
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids()
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not pids:
                break
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        for d in self.dirs.values():
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)


def _write(path, value, missing_ok=False):
    try:
        Path(path).write_text(str(value))
    except FileNotFoundError:
        if not missing_ok:
            raise
    except OSError:
        if not missing_ok:
            raise


def remove_stale_cgroups(owner_pid):
    """Remove the groups a killed grading process (``owner_pid``) left behind."""
    for base in [CGROUP_ROOT / c / "gm-grade" for c in ("memory", "pids", "cpu")] + [CGROUP_ROOT / "gm-grade"]:
        for d in base.glob(f"gm-grade-{owner_pid}-*"):
            group = Cgroup.__new__(Cgroup)
            group.layout, group.dirs = "?", {"x": d}
            group.destroy(timeout=5.0)


# ----------------------------------------------------------------- bwrap --

def python_in_sandbox():
    """This venv's python by its real folder (the sandbox binds real paths only)."""
    return os.path.join(os.path.realpath(sys.prefix), "bin", os.path.basename(sys.executable))


def bwrap_path():
    return shutil.which("bwrap")


def slot_user(slot):
    """The host user of kernel slot ``slot``: gm-sandbox (slot 0), gm-sandbox1, gm-sandbox2, ..."""
    return SANDBOX_USER if slot == 0 else f"{SANDBOX_USER}{slot}"


def sandbox_user(slot=0):
    """(uid, gid) of the host user of kernel slot ``slot``, or a SandboxUnavailable that says how to make it."""
    name = slot_user(slot)
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise SandboxUnavailable(f"no user {name} to run the students' code as: run "
                                 "tools/install_sandbox.sh (as root) to create it") from None
    if entry.pw_uid == 0 or entry.pw_gid == 0:
        raise SandboxUnavailable(f"the user {name} is root or in root's group: it must own nothing")
    return entry.pw_uid, entry.pw_gid


def slots():
    """How many kernels may run at once, each as a host user of its own (gm-sandbox, gm-sandbox1, ...)."""
    count = 0
    while count < MAX_SLOTS:
        try:
            sandbox_user(count)
        except SandboxUnavailable:
            break
        count += 1
    return count


def purge_keys(uid):
    """Clear the keyrings of host user ``uid`` (its user and user-session keyrings), as that user.

    The seccomp filter refuses the keyring calls inside the sandbox; this is the second wall: whatever
    a kernel could have left there is gone before the slot's user runs the next student's kernel.
    Runs in a child that becomes ``uid`` (root may not clear another user's keyrings by their special ids).
    """
    from grader import syscalls

    libc, number = _libc(), syscalls.number("keyctl")

    def clear():
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
            libc.syscall(number, KEYCTL_CLEAR, ring)

    subprocess.run(["/bin/true"], preexec_fn=clear, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, timeout=30)


def _visible_paths(root):
    """Paths bound read-only: system, Python, the venv, the book's lib."""
    paths = []
    for p in SYSTEM_PATHS:
        if os.path.lexists(p):
            paths.append(p)
    paths += [os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), str(Path(root) / "lib")]
    for entry in sys.path:  # site-packages outside the prefixes (rare): bound too
        real = os.path.realpath(entry)
        if entry and "site-packages" in entry and os.path.isdir(real):
            paths.append(real)
    out, seen = [], set()
    for p in paths:
        if p in seen or any(p.startswith(s.rstrip("/") + "/") for s in seen if not os.path.islink(s)):
            continue
        seen.add(p)
        out.append(p)
    return out


def _may(st, uid, gid, bit):
    """Whether ``uid``/``gid`` (no other groups, no capability) has permission ``bit`` (1 x, 4 r) on ``st``."""
    if st.st_uid == uid:
        return bool(st.st_mode & (bit << 6))
    if st.st_gid == gid:
        return bool(st.st_mode & (bit << 3))
    return bool(st.st_mode & bit)


def _closed_ancestor(path, uid, gid):
    """The highest folder above ``path`` that ``uid`` may not walk through, or None."""
    parts = Path(path).parts
    for i in range(1, len(parts)):
        folder = os.path.join(*parts[:i])
        try:
            if not _may(os.stat(folder), uid, gid, 1):
                return folder
        except OSError:
            return None
    return None


def _staging(paths, uid, gid):
    """{closed folder: [paths under it to show]}: what the starting process re-binds before bwrap runs."""
    closed = {}
    for p in paths:
        if not os.path.islink(p) and (folder := _closed_ancestor(p, uid, gid)) is not None:
            closed[p] = folder
    plan = {}
    for folder in sorted(set(closed.values()), key=len):  # a closed folder inside another: the outer one
        if not any(folder.startswith(outer.rstrip("/") + "/") for outer in plan):
            plan[folder] = []
    for p, folder in closed.items():
        outer = next(o for o in plan if folder == o or folder.startswith(o.rstrip("/") + "/"))
        plan[outer].append(p)
    return plan


@functools.lru_cache(maxsize=None)
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    return libc


def _starter(procs_files, uid, gid, staging):
    """The function the starting process runs as root before it becomes ``uid`` and execs bwrap.

    It enters the kernel's cgroups, shows the closed folders' bound paths in a mount
    namespace of its own, and drops every privilege (groups, gid, uid: root's capabilities
    go with the uid).  Runs between fork and exec: only system calls, no imports.
    """
    libc = _libc()
    CLONE_NEWNS, MS_BIND, MS_REC, MS_PRIVATE = 0x20000, 4096, 16384, 1 << 18
    targets = [os.fsencode(f) for f in procs_files]

    def check(result, what):
        if result != 0:
            os.write(2, f"sandbox: {what}: {os.strerror(ctypes.get_errno())}\n".encode())
            os._exit(121)

    def start():
        pid = str(os.getpid()).encode()  # this child's, not the grader's
        for f in targets:  # as root: the kernel's whole tree is bounded from its first process on
            fd = os.open(f, os.O_WRONLY)
            os.write(fd, pid)
            os.close(fd)
        if staging:
            check(libc.unshare(CLONE_NEWNS), "unshare")
            check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
            for closed, paths in staging.items():
                fds = [os.open(p, os.O_PATH | os.O_CLOEXEC) for p in paths]
                check(libc.mount(b"tmpfs", os.fsencode(closed), b"tmpfs", 0, b"mode=0755,size=1m"), "tmpfs")
                for p, fd in zip(paths, fds):
                    os.makedirs(p, exist_ok=True)
                    check(libc.mount(f"/proc/self/fd/{fd}".encode(), os.fsencode(p), None, MS_BIND | MS_REC, None),
                          "bind")
                    os.close(fd)
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:
            os._exit(122)

    return start


def _hidden_args(hidden, bound):
    """Cover each hidden path (file or folder) that lies inside a bound folder, by its real path."""
    args = []
    for h in hidden:
        real = os.path.realpath(h)
        if not any(real == b or real.startswith(b.rstrip("/") + "/") for b in bound):
            continue  # not bound: the sandbox cannot see it at all
        if os.path.isdir(real):
            args += ["--tmpfs", real, "--remount-ro", real]
        elif os.path.lexists(real):
            args += ["--ro-bind", "/dev/null", real]
    return args


def bwrap_command(root, tmp_size, info_fd, conn_fd, extra_fds, kernel_argv, hidden=(), overlays=(), seccomp_fd=None):
    """The bwrap command line for one kernel (run by the sandbox's user, unprivileged); ``seccomp_fd``: the
    filter every process of the sandbox runs under (:mod:`grader.syscalls`)."""
    args = ["bwrap", *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
            "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--disable-userns",
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox",
            "--info-fd", str(info_fd),
            # /tmp first: a checkout, venv or Python that lives under /tmp is bound on top of it
            "--size", str(tmp_size), "--tmpfs", "/tmp", "--dir", "/tmp/run", "--dir", "/tmp/.gm"]
    visible = _visible_paths(root)
    for p in visible:
        if os.path.islink(p) and p in SYSTEM_PATHS:
            args += ["--symlink", os.readlink(p), p]
        else:
            args += ["--ro-bind", p, p]
    args += _masks("/etc")
    args += _hidden_args(hidden, [p for p in visible if not os.path.islink(p)])
    for source, destination in overlays:  # lib/checks as the sandbox shows it (lib/checks/_sandbox.py)
        args += ["--ro-bind", str(source), str(destination)]
    # /dev: five devices, read-only; /dev/shm a bounded tmpfs of its own
    args += ["--size", "65536", "--tmpfs", "/dev"]
    for name in DEVICES:
        args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        args += ["--symlink", target, f"/dev/{name}"]
    args += ["--dir", "/dev/shm", "--size", str(SHM_SIZE), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
             "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
             "--ro-bind-data", str(conn_fd), "/tmp/.gm/kernel.json",
             "--remount-ro", "/", "--chdir", "/tmp/run",
             "--clearenv"]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp/run", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONPATH": str(root), "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1",
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp/.gm-mpl", "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
           "JUPYTER_PLATFORM_DIRS": "1", "IPYTHONDIR": "/tmp/.gm-ipython"}
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ"):
        if k in os.environ:
            env[k] = os.environ[k]
    for k, v in env.items():
        args += ["--setenv", k, v]
    return args + ["--", *kernel_argv]


@functools.lru_cache(maxsize=None)
def _masks_cached(top):
    out = []
    for folder, dirs, files in os.walk(top):
        for d in list(dirs):
            full = os.path.join(folder, d)
            if os.path.islink(full):
                continue
            if not os.stat(full).st_mode & 0o005 == 0o005:
                out += ["--tmpfs", full, "--remount-ro", full]
                dirs.remove(d)
        for f in files:
            full = os.path.join(folder, f)
            try:
                mode = os.stat(full).st_mode
            except OSError:
                continue
            if not os.path.islink(full) and not mode & 0o004:
                out += ["--ro-bind", "/dev/null", full]
    return tuple(out)


def _masks(top):
    """Hide by path what only its owner or group may read under ``top`` (/etc/shadow, private keys, ...).

    The sandbox's user could not read them anyway; they are covered by an empty file or folder
    so that not even their size or time shows.
    """
    return list(_masks_cached(top))


class Sandbox:
    """An IPython kernel in bwrap + cgroups (or, unsafe, in a plain subprocess)."""

    def __init__(self, root, limits, unsafe=False, agent=""):
        self.root, self.limits, self.unsafe, self.agent = Path(root).resolve(), limits, unsafe, agent
        self.proc = self.cgroup = self.child_pid = self.uid = None
        self.key = secrets.token_hex(32)
        self.work = None
        self.gm_dir = None  # the grader's handle on the kernel's /tmp/.gm (O_PATH, opened without links)
        self.sockets = {}  # channel -> (O_PATH fd, (st_dev, st_ino)) of the kernel's socket file

    def start(self, ready_timeout=60.0):
        limits = self.limits
        kernel_argv = [python_in_sandbox(), "-c", KERNEL_LAUNCHER, str(limits["memory"]), str(limits["file_size"]),
                       str(limits["cpu_time"]), self.agent, "-f", "/tmp/.gm/kernel.json",
                       "--HistoryManager.enabled=False"]
        conn_inside = {"transport": "ipc", "ip": "/tmp/.gm/k", "shell_port": 1, "iopub_port": 2,
                       "stdin_port": 3, "control_port": 4, "hb_port": 5, "key": self.key,
                       "signature_scheme": "hmac-sha256", "kernel_name": ""}
        if self.unsafe:
            import tempfile
            self.work = Path(tempfile.mkdtemp(prefix="gm-kernel-"))
            conn = {**conn_inside, "ip": str(self.work / "k")}
            (self.work / "kernel.json").write_text(json.dumps(conn))
            (self.work / "run").mkdir()
            argv = [sys.executable, "-c", KERNEL_LAUNCHER.replace('"/tmp/run"', repr(str(self.work / "run"))),
                    *kernel_argv[3:7], "-f", str(self.work / "kernel.json"), *kernel_argv[9:]]
            env = {k: v for k, v in os.environ.items()
                   if k in ("PATH", "LANG", "TZ", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
            env.update({"PYTHONPATH": str(self.root), "HOME": str(self.work / "run"), "MPLBACKEND": "Agg",
                        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
            self.child_pid = self.proc.pid
            self._gm_path = str(self.work)
            return self
        from grader import syscalls

        uid, gid = sandbox_user(limits.get("slot", 0))  # this kernel slot's own host user
        self.uid = uid
        try:
            program = syscalls.bpf()
        except syscalls.SeccompUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from None
        self.cgroup = Cgroup(limits["tree_memory"], limits["processes"])
        info_r, info_w = os.pipe()
        conn_r, conn_w = os.pipe()
        os.write(conn_w, json.dumps(conn_inside).encode())
        os.close(conn_w)
        seccomp_r, seccomp_w = os.pipe()  # a few KiB: within a pipe's buffer, written before bwrap reads it
        os.write(seccomp_w, program)
        os.close(seccomp_w)
        fds = [seccomp_r]
        try:
            cmd = bwrap_command(self.root, limits["tmp_size"], info_w, conn_r, fds, kernel_argv,
                                limits.get("hidden", ()), limits.get("overlays", ()), seccomp_fd=seccomp_r)
            # the overlays' sources too: a TMPDIR in a private folder (pytest's) is shown the same way
            staging = _staging(_visible_paths(self.root) + [str(src) for src, _ in limits.get("overlays", ())],
                               uid, gid)
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=None if os.environ.get("GM_SANDBOX_DEBUG") else subprocess.DEVNULL,
                                         pass_fds=[info_w, conn_r, *fds], start_new_session=True,
                                         preexec_fn=_starter(self.cgroup.procs_files(), uid, gid, staging),
                                         executable=bwrap_path())
        finally:
            for fd in [info_w, conn_r, *fds]:
                os.close(fd)
        info = b""
        deadline = time.monotonic() + ready_timeout
        with os.fdopen(info_r, "rb") as fh:
            info = fh.read(4096)  # bwrap writes it once the sandbox runs, then closes the pipe
        try:
            self.child_pid = int(json.loads(info)["child-pid"])
        except (ValueError, KeyError, TypeError):
            err = b""
            try:
                _, err = self.proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            self.kill()
            raise SandboxUnavailable(f"bwrap did not start: {(err or b'').decode(errors='replace').strip()[-500:]}")
        self._gm_path = None
        return self

    def _open_gm_dir(self):
        """The kernel's /tmp/.gm, opened component by component without following a link."""
        if self._gm_path is not None:  # unsafe mode: the grader's own temporary folder
            return os.open(self._gm_path, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        flags = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        root = os.open(f"/proc/{self.child_pid}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            tmp = os.open("tmp", flags, dir_fd=root)
        finally:
            os.close(root)
        try:
            return os.open(".gm", flags, dir_fd=tmp)
        finally:
            os.close(tmp)

    def endpoints(self, timeout=60.0):
        """{channel: ZeroMQ address} through the grader's own descriptors of the kernel's sockets.

        Called before any student code runs; waits for the kernel to create its sockets. Raises
        SandboxUnavailable when they do not appear as sockets (a link, a file) in time.
        """
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.gm_dir is None:
                    self.gm_dir = self._open_gm_dir()
                for channel, name in SOCKETS.items():
                    if channel in self.sockets:
                        continue
                    fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.gm_dir)
                    st = os.fstat(fd)
                    if not stat.S_ISSOCK(st.st_mode):
                        os.close(fd)
                        raise SandboxUnavailable(f"the kernel's {channel} channel is not a socket")
                    self.sockets[channel] = (fd, (st.st_dev, st.st_ino))
                return {channel: f"ipc:///proc/self/fd/{fd}" for channel, (fd, _) in self.sockets.items()}
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise SandboxUnavailable(f"the kernel's connection folder cannot be opened: {exc.strerror}") from None
            if time.monotonic() > deadline or not self.alive():
                raise SandboxUnavailable("the kernel did not open its sockets")
            time.sleep(0.02)

    def tampered(self):
        """Whether a socket file of the kernel's was replaced (by a link, another socket...) since it was opened."""
        for channel, (_, ident) in self.sockets.items():
            try:
                st = os.stat(SOCKETS[channel], dir_fd=self.gm_dir, follow_symlinks=False)
            except OSError:
                return True
            if (st.st_dev, st.st_ino) != ident:
                return True
        return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def oom_killed(self):
        return bool(self.cgroup and self.cgroup.oom_killed())

    def kill(self):
        """Kill the kernel and every process it started; remove the cgroups, files and descriptors."""
        if self.child_pid and not self.unsafe:
            try:
                os.kill(self.child_pid, signal.SIGKILL)  # PID 1 of the namespace: the rest die with it
            except ProcessLookupError:
                pass
        if self.proc is not None:
            if self.unsafe:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass
            try:
                self.proc.communicate(timeout=10)
            except (subprocess.TimeoutExpired, ValueError):
                pass
        if self.cgroup is not None:
            self.cgroup.destroy()
            self.cgroup = None
        if self.uid is not None:  # every process of the slot's user is gone: its keyrings are emptied
            purge_keys(self.uid)
            self.uid = None
        self._release_files()

    def _release_files(self):
        """Close the kernel's sockets and folder descriptor and remove its working folder."""
        for fd, _ in self.sockets.values():
            os.close(fd)
        self.sockets = {}
        if self.gm_dir is not None:
            os.close(self.gm_dir)
            self.gm_dir = None
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None


def probe(root, limits):
    """Why this machine cannot sandbox a kernel, or None when it can."""
    if bwrap_path() is None:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    if _cgroup_layout() is None:
        return ("no cgroup hierarchy the grader may write to (it bounds the memory and processes of each "
                "kernel): run the grader as root on a machine with cgroups v1 or v2")
    try:
        sandbox_user()
    except SandboxUnavailable as exc:
        return str(exc)
    from grader import syscalls

    try:
        syscalls.bpf()
    except syscalls.SeccompUnavailable as exc:
        return str(exc)
    return None
