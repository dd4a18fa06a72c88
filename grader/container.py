"""The boundary where bubblewrap cannot start: a container (Gradescope's) as the sandbox, a user of its own inside.

Gradescope runs each submission in a Docker container, as root.  Docker's default seccomp profile refuses
the user namespaces bwrap needs, and the container's cgroups are read-only, so :func:`grader.sandbox.probe`
usually fails there.  The grader then keeps what it can of its seal (guide/gradescope.md, "Gradescope"):

* the kernel runs as ``gm-autograder``, a user that owns nothing, never as root: what only root may read
  (the bundle's key, hidden checks and assignment, the submission folder, the results folder, the real
  ``lib/checks``) it cannot read or write.  ``grader.gradescope`` makes those root-only before it starts;
* ``lib.checks`` as the kernel sees it is the sandbox's edition (``lib/checks/_sandbox.py``), as under
  bubblewrap: the kernel imports ``lib`` from a folder of its own whose ``checks`` is that edition;
* the limits of the kernel's process tree: address space, file size and CPU time per process (the kernel
  launcher's, as under bubblewrap), the number of processes of the user (``RLIMIT_NPROC``), the time per
  cell and per notebook (the grader's);
* at the end every process of ``gm-autograder`` is killed, whatever session it moved to;
* the container is the rest of the boundary: it holds one submission and is thrown away.  Not kept: the
  network (the container's own), the view of the system (the whole container's files, as that user), and
  one memory bound for the whole tree (Gradescope's container limit is that bound).

Student code still runs only in the kernel and is judged in the grading process (grader/run.py), as
everywhere else.  :class:`ContainerSandbox` has the interface of :class:`grader.sandbox.Sandbox`.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from grader import sandbox

BOUNDARY = "container"  # limits["boundary"]: grader/run.py starts a ContainerSandbox instead of bwrap
# The kernel's user here: one of its own, not bwrap's gm-sandbox, because every process of this user is
# killed at the end (a machine that also grades with bwrap keeps its other kernels).  setup.sh makes it.
USER = "gm-autograder"


def container_user():
    """(uid, gid) of :data:`USER`, or a SandboxUnavailable that says how to make it."""
    import pwd

    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        raise sandbox.SandboxUnavailable(f"no user {USER} to run the notebook as (the bundle's setup.sh makes "
                                         "it)") from None
    if entry.pw_uid == 0 or entry.pw_gid == 0:
        raise sandbox.SandboxUnavailable(f"the user {USER} is root or in root's group: it must own nothing")
    return entry.pw_uid, entry.pw_gid


def processes_of(uid):
    """The ids of the processes whose real user is ``uid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as fh:
                for line in fh:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            found.append(int(entry))
                        break
        except (OSError, ValueError, IndexError):
            pass
    return found


def kill_user(uid, timeout=10.0):
    """Kill every process of ``uid`` (a forked child becomes that user and signals all it may: kill(-1))."""
    deadline = time.monotonic() + timeout
    while processes_of(uid):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.setgroups([])
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)  # every process of this user but the caller
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    return not processes_of(uid)


class ContainerSandbox(sandbox.Sandbox):
    """An IPython kernel as ``gm-autograder`` in a plain process tree (no bwrap, no cgroups)."""

    def start(self, ready_timeout=60.0):
        limits = self.limits
        uid, gid = container_user()
        if os.geteuid() != 0:
            raise sandbox.SandboxUnavailable(f"the container boundary needs root, to run the kernel as {USER}")
        if processes_of(uid):  # a kernel of another notebook would share the user's process count
            kill_user(uid)
        # root's folder (another user cannot rename what is inside) holding the kernel's own
        base = Path(tempfile.mkdtemp(prefix="gm-container-"))
        os.chmod(base, 0o755)
        self.work = base
        kernel_dir = base / "kernel"
        for folder in (kernel_dir, kernel_dir / "run", kernel_dir / "tmp"):
            folder.mkdir()
            os.chown(folder, uid, gid)
            os.chmod(folder, 0o700)
        view = base / "view"  # lib as the kernel imports it: the sandbox's edition of lib/checks
        view.mkdir()
        self._lib_view(view)
        conn = {"transport": "ipc", "ip": str(kernel_dir / "k"), "shell_port": 1, "iopub_port": 2,
                "stdin_port": 3, "control_port": 4, "hb_port": 5, "key": self.key,
                "signature_scheme": "hmac-sha256", "kernel_name": ""}
        connection = base / "kernel.json"
        connection.write_text(json.dumps(conn))
        os.chmod(connection, 0o644)
        launcher = sandbox.KERNEL_LAUNCHER.replace('"/tmp/run"', repr(str(kernel_dir / "run")))
        argv = [sandbox.python_in_sandbox(), "-c", launcher, str(limits["memory"]), str(limits["file_size"]),
                str(limits["cpu_time"]), self.agent, "-f", str(connection), "--HistoryManager.enabled=False"]
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(kernel_dir / "run"),
               "TMPDIR": str(kernel_dir / "tmp"), "LANG": "C.UTF-8", "PYTHONPATH": str(view),
               "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
               "MPLCONFIGDIR": str(kernel_dir / "tmp" / ".mpl"), "OMP_NUM_THREADS": "1",
               "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
               "JUPYTER_PLATFORM_DIRS": "1", "IPYTHONDIR": str(kernel_dir / "tmp" / ".ipython")}
        env.update({k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ") if k in os.environ})
        processes = limits["processes"]

        def drop():  # between fork and exec: bound the user's processes, then become that user
            os.setsid()
            resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            if os.getuid() != uid or os.geteuid() != uid:
                os._exit(122)

        self.proc = subprocess.Popen(argv, env=env, cwd=str(kernel_dir / "run"), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=drop,
                                     close_fds=True)
        self.child_pid = self.proc.pid
        self._gm_path = str(kernel_dir)
        self._uid = uid
        return self

    def _lib_view(self, view):
        """``view/lib``: links to the bundle's lib, but ``checks`` a copy of the sandbox's edition (the overlay)."""
        lib = self.root / "lib"
        overlays = {Path(dst): Path(src) for src, dst in self.limits.get("overlays", ())}
        (view / "lib").mkdir()
        for entry in sorted(lib.iterdir()):
            if entry.name == "__pycache__":
                continue
            if entry in overlays:  # a copy, not a link: lib.checks._core arms what lies beside its real path
                shutil.copytree(overlays[entry], view / "lib" / entry.name)
            else:
                os.symlink(entry, view / "lib" / entry.name)
        unknown = [dst for dst in overlays if dst.parent != lib]
        if unknown:
            raise sandbox.SandboxUnavailable(f"cannot show {unknown[0]} to the kernel without bwrap")

    def oom_killed(self):
        return False  # no memory cgroup here: a kernel over its address space sees MemoryError instead

    def kill(self):
        """Kill the kernel and every process of ``gm-autograder``; remove the kernel's folders."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if getattr(self, "_uid", None) is not None:
            kill_user(self._uid)
        if self.proc is not None:
            try:
                self.proc.communicate(timeout=10)
            except (subprocess.TimeoutExpired, ValueError):
                pass
        self._release_files()
