"""One student's kernel in a sandbox: bubblewrap for what it sees, cgroups for what it uses.

Used by ``tools/grade.py``.  A :class:`Sandbox` starts an IPython kernel

* as user ``nobody`` without any capability, in its own user, PID, network,
  IPC and UTS namespaces (``bwrap``): no network, no view of other processes,
  and every process it starts dies with it.  (Run by root, bwrap maps that
  user to root for file permissions, so files of ``/etc`` that only their
  owner may read are covered: see :func:`_masks`);
* on a filesystem that holds only what the kernel needs, read-only: the
  system (``/usr``, ``/etc``, ...), Python and the venv, and the book's
  ``lib`` folder.  Not the book's sources or solutions, not the submissions,
  not the grader's output, not the other kernels.  Its only writable place is
  a private ``/tmp`` of bounded size;
* in cgroups that bound the memory, the number of processes and the CPU share
  of the whole process tree (cgroup v1 or v2, which needs root).

The grader talks to the kernel over ZeroMQ sockets that the kernel creates
inside its own ``/tmp`` (reached from outside through ``/proc/<pid>/root``),
never over its standard output.  :meth:`Sandbox.kill` kills the sandbox's
first process, which takes every other process of its PID namespace with it,
then empties and removes its cgroups.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

NOBODY = 65534
CGROUP_ROOT = Path("/sys/fs/cgroup")
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")

KERNEL_LAUNCHER = """\
import os, resource, sys
os.closerange(3, 4096)  # nothing of the grader's (pipes, directory handles) stays open
memory, file_size, cpu = (int(a) for a in sys.argv[1:4])
del sys.argv[1:4]
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
os.makedirs("/tmp/run", exist_ok=True)
os.chdir("/tmp/run")
from ipykernel import kernelapp
kernelapp.launch_new_instance()
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


def _visible_paths(root):
    """(source, destination) pairs bound read-only: system, Python, the venv, the book's lib."""
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


def bwrap_command(root, tmp_size, info_fd, conn_fd, extra_fds, kernel_argv, hidden=(), overlays=()):
    """The bwrap command line (and the fds it needs kept open) for one kernel."""
    args = ["bwrap", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY),
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox",
            "--info-fd", str(info_fd),
            # /tmp first: a checkout, venv or Python that lives under /tmp is bound on top of it
            "--size", str(tmp_size), "--tmpfs", "/tmp", "--dir", "/tmp/run", "--dir", "/tmp/.gm"]
    for p in _visible_paths(root):
        if os.path.islink(p) and p in SYSTEM_PATHS:
            args += ["--symlink", os.readlink(p), p]
        else:
            args += ["--ro-bind", p, p]
    args += _masks("/etc")
    bound = [p for p in _visible_paths(root) if not os.path.islink(p)]
    for h in hidden:  # the submissions and the output, should they lie inside a bound folder
        h = os.path.realpath(h)
        if any(h == b or h.startswith(b.rstrip("/") + "/") for b in bound) and os.path.isdir(h):
            args += ["--tmpfs", h]
    for source, destination in overlays:  # e.g. lib/checks as the sandbox shows it (lib/checks/_sandbox.py)
        args += ["--ro-bind", str(source), str(destination)]
    args += ["--dev", "/dev", "--proc", "/proc",
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


def _masks(top):
    """Hide what only its owner (root) may read under ``top`` (/etc/shadow, private keys, ...).

    Inside the sandbox the kernel runs as ``nobody`` without any capability, but in its own
    user namespace that user is mapped to the grader's user, so files readable by their owner
    alone would be readable; they are covered by an empty file or folder.
    """
    out = []
    for folder, dirs, files in os.walk(top):
        for d in list(dirs):
            full = os.path.join(folder, d)
            if os.path.islink(full):
                continue
            if not os.stat(full).st_mode & 0o005 == 0o005:
                out += ["--tmpfs", full]
                dirs.remove(d)
        for f in files:
            full = os.path.join(folder, f)
            try:
                mode = os.stat(full).st_mode
            except OSError:
                continue
            if not os.path.islink(full) and not mode & 0o004:
                out += ["--ro-bind", "/dev/null", full]
    return out


class Sandbox:
    """An IPython kernel in bwrap + cgroups (or, unsafe, in a plain subprocess)."""

    def __init__(self, root, limits, unsafe=False):
        self.root, self.limits, self.unsafe = Path(root).resolve(), limits, unsafe
        self.proc = self.cgroup = self.child_pid = None
        self.key = secrets.token_hex(32)
        self.work = None
        self.ip = None

    def start(self, ready_timeout=60.0):
        limits = self.limits
        kernel_argv = [python_in_sandbox(), "-c", KERNEL_LAUNCHER, str(limits["memory"]), str(limits["file_size"]),
                       str(limits["cpu_time"]), "-f", "/tmp/.gm/kernel.json", "--HistoryManager.enabled=False"]
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
                    *kernel_argv[3:6], "-f", str(self.work / "kernel.json"), *kernel_argv[8:]]
            env = {k: v for k, v in os.environ.items()
                   if k in ("PATH", "LANG", "TZ", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
            env.update({"PYTHONPATH": str(self.root), "HOME": str(self.work / "run"), "MPLBACKEND": "Agg",
                        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
            self.child_pid = self.proc.pid
            self.ip = conn["ip"]
            return self
        self.cgroup = Cgroup(limits["tree_memory"], limits["processes"])
        info_r, info_w = os.pipe()
        conn_r, conn_w = os.pipe()
        os.write(conn_w, json.dumps(conn_inside).encode())
        os.close(conn_w)
        fds = []
        try:
            cmd = bwrap_command(self.root, limits["tmp_size"], info_w, conn_r, fds, kernel_argv,
                                limits.get("hidden", ()), limits.get("overlays", ()))
            enter = " ; ".join(f"echo $$ > {f}" for f in self.cgroup.procs_files())
            shell = ["/bin/sh", "-c", f'{enter} && exec "$@"', "sh", *cmd]
            self.proc = subprocess.Popen(shell, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=None if os.environ.get("GM_SANDBOX_DEBUG") else subprocess.DEVNULL,
                                         pass_fds=[info_w, conn_r, *fds],
                                         start_new_session=True)
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
            raise SandboxUnavailable(f"bwrap did not start: {err.decode(errors='replace').strip()[-500:]}")
        self.ip = f"/proc/{self.child_pid}/root/tmp/.gm/k"
        return self

    def connection(self):
        return {"transport": "ipc", "ip": self.ip, "shell_port": 1, "iopub_port": 2, "stdin_port": 3,
                "control_port": 4, "hb_port": 5, "key": self.key, "signature_scheme": "hmac-sha256"}

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def oom_killed(self):
        return bool(self.cgroup and self.cgroup.oom_killed())

    def kill(self):
        """Kill the kernel and every process it started; remove the cgroups and files."""
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
    return None


# ------------------------------------------------------ the kernel's sockets --

class KernelLink:
    """The grader's end of the kernel's shell and control channels (no iopub, no stdin).

    Only replies to the grader's own requests are read; what the kernel prints
    (iopub) is never read at all.  Messages larger than ``max_message`` bytes
    close the connection instead of filling the grader's memory.
    """

    def __init__(self, connection, max_message=64 * 2**20):
        import zmq
        from jupyter_client.session import Session

        self.zmq = zmq
        self.session = Session(key=connection["key"].encode(), signature_scheme=connection["signature_scheme"],
                               username="grader")
        self.context = zmq.Context()
        self.sockets = {}
        for channel in ("shell", "control"):
            sock = self.context.socket(zmq.DEALER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.MAXMSGSIZE, max_message)
            sock.setsockopt(zmq.IDENTITY, self.session.bsession)
            sock.connect(f"ipc://{connection['ip']}-{connection[channel + '_port']}")
            self.sockets[channel] = sock

    def send(self, channel, msg_type, content):
        msg = self.session.msg(msg_type, content)
        self.session.send(self.sockets[channel], msg)
        return msg["header"]["msg_id"]

    def reply(self, channel, msg_id, timeout):
        """The reply to ``msg_id`` (a dict), or None after ``timeout`` seconds. Other messages are dropped."""
        sock = self.sockets[channel]
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if not sock.poll(int(min(left, 1.0) * 1000)):
                continue
            try:
                msg = self.session.recv(sock, mode=self.zmq.NOBLOCK, content=True)[1]
            except Exception:  # noqa: BLE001 - a malformed or badly signed message is dropped
                continue
            if not isinstance(msg, dict):
                continue
            parent = msg.get("parent_header")
            if isinstance(parent, dict) and parent.get("msg_id") == msg_id:
                content = msg.get("content")
                return content if isinstance(content, dict) else {}

    def wait_ready(self, timeout, alive=lambda: True):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and alive():
            msg_id = self.send("shell", "kernel_info_request", {})
            if self.reply("shell", msg_id, 1.0) is not None:
                return True
        return False

    def execute(self, code, timeout, silent=False):
        """Run ``code``; the execute_reply's content, or None when no reply came within ``timeout``."""
        msg_id = self.send("shell", "execute_request", {
            "code": code, "silent": silent, "store_history": not silent, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": False})
        return self.reply("shell", msg_id, timeout)

    def interrupt(self, timeout=2.0):
        msg_id = self.send("control", "interrupt_request", {})
        return self.reply("control", msg_id, timeout) is not None

    def close(self):
        for sock in self.sockets.values():
            sock.close(linger=0)
        self.context.term()
