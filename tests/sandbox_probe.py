"""What a student's kernel can see and write: run inside the sandbox by tests/test_sandbox_audit.py."""

import ctypes
import os
import socket
import stat


def probe(roots_to_walk, secrets):
    report = {}
    report["ids"] = [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), sorted(os.getgroups())]
    report["uid_map"] = open("/proc/self/uid_map").read().split()
    report["gid_map"] = open("/proc/self/gid_map").read().split()
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    report["status"] = {k: status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                                       "NoNewPrivs", "Seccomp") if k in status}
    mounts = []
    for line in open("/proc/self/mountinfo"):
        fields = line.split()
        sep = fields.index("-")
        mounts.append([fields[4], "ro" if "ro" in fields[5].split(",") else "rw", fields[sep + 1]])
    report["mounts"] = mounts
    report["top"] = sorted(os.listdir("/"))
    report["dev"] = sorted(os.listdir("/dev"))
    report["env"] = sorted(os.environ)
    report["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    report["hostname"] = socket.gethostname()
    report["net"] = sorted(line.split(":")[0].strip() for line in open("/proc/net/dev").read().splitlines()[2:])
    # every directory of the filesystem where a file can be created (outside /proc)
    writable, walked = [], 0
    for top in report["top"]:
        if top in ("proc", "sys"):
            continue
        for folder, dirs, files in os.walk("/" + top):
            walked += 1
            try:
                fd = os.open(os.path.join(folder, ".gm-audit-probe"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except OSError:
                continue
            os.close(fd)
            os.unlink(os.path.join(folder, ".gm-audit-probe"))
            writable.append(folder)
            dirs[:] = []  # below a writable folder: writable too
    report["writable"] = sorted(writable)
    report["walked"] = walked
    # files of the kernel's tunables that open for writing
    tunables = []
    for base in ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/sys"):
        if os.path.isfile(base):
            candidates = [base]
        else:
            candidates = [os.path.join(f, n) for f, _, ns in os.walk(base) for n in ns]
        for path in candidates:
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                tunables.append(path)
            except OSError:
                pass
    report["tunables_writable"] = tunables
    # /proc entries other than processes that open for writing
    report["proc_writable"] = []
    for name in os.listdir("/proc"):
        path = "/proc/" + name
        if name.isdigit() or name in ("self", "thread-self") or not os.path.isfile(path):
            continue
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            report["proc_writable"].append(path)
        except OSError:
            pass
    # files the sandbox can read that the host does not let every user read
    owner_only = []
    for root in roots_to_walk:
        for folder, dirs, files in os.walk(root):
            for n in files:
                path = os.path.join(folder, n)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and not st.st_mode & 0o004:
                    try:
                        with open(path, "rb") as fh:
                            fh.read(1)
                        owner_only.append(path)
                    except OSError:
                        pass
    report["owner_only_readable"] = owner_only
    seen = {}
    for path in secrets:
        try:
            with open(path, "rb") as fh:
                seen[path] = "read %d bytes" % len(fh.read())
        except OSError as exc:
            seen[path] = type(exc).__name__
    report["secrets"] = seen
    libc = ctypes.CDLL(None, use_errno=True)
    report["unshare_user"] = libc.unshare(0x10000000) == 0
    report["setuid0"] = libc.setuid(0) == 0
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(("1.1.1.1", 53))
        report["network"] = "connected"
    except OSError as exc:
        report["network"] = type(exc).__name__
    finally:
        s.close()
    return report
