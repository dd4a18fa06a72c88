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


# ------------------------------------------------ the seccomp filter, two kernels --
# Run by tests/test_sandbox_audit.py in kernels side by side: what one leaves, the other looks for.

def calls(numbers):
    """{name: errno name} of raw system calls made with zero arguments (the filter answers before the kernel)."""
    import errno

    libc = ctypes.CDLL(None, use_errno=True)
    out = {}
    for name, number in numbers.items():
        ctypes.set_errno(0)
        result = libc.syscall(number, 0, 0, 0, 0, 0)
        out[name] = "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    return out


def _errno(result):
    import errno

    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")


def _locks(path):
    """Every way to lock a file both kernels can read: each must be refused."""
    import fcntl
    import struct

    out = {}
    fd = os.open(path, os.O_RDONLY)
    lock = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 1, 0) + bytes(4)
    for name, call in (("flock", lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
                       ("F_SETLK", lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lock)),
                       ("F_GETLK", lambda: fcntl.fcntl(fd, fcntl.F_GETLK, lock)),
                       ("F_OFD_SETLK", lambda: fcntl.fcntl(fd, 37, lock)),
                       ("F_OFD_GETLK", lambda: fcntl.fcntl(fd, 36, lock)),
                       ("F_SETLEASE", lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))):
        try:
            call()
            out[name] = "ok"
        except OSError as exc:
            out[name] = exc.strerror
    os.close(fd)
    return out


def plant(tag, numbers, shared):
    """Leave a message for another kernel through every channel Linux has between two processes."""
    libc = ctypes.CDLL(None, use_errno=True)
    out = {"add_key": _errno(libc.syscall(numbers["add_key"], b"user", tag.encode(), b"message", 7,
                                          ctypes.c_int(-4)))}  # KEY_SPEC_USER_KEYRING
    out["locks"] = _locks(shared)
    key = 0x51510000
    out["shmget"] = _errno(libc.shmget(key, 4096, 0o1000 | 0o666))  # IPC_CREAT
    out["msgget"] = _errno(libc.msgget(key, 0o1000 | 0o666))
    out["semget"] = _errno(libc.semget(key, 1, 0o1000 | 0o666))
    libc.mq_open.restype = ctypes.c_int
    out["mq_open"] = _errno(libc.mq_open(f"/{tag}".encode(), os.O_CREAT | os.O_RDWR, 0o666, None))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0" + tag)
    server.listen(1)
    out["abstract"] = "listening"
    globals()["_gm_keep"] = server  # open until the kernel ends
    for folder in ("/tmp", "/dev/shm"):
        with open(f"{folder}/{tag}", "w") as fh:
            fh.write("message")
    return out


def look(tag, numbers, shared):
    """What this kernel finds of the message another kernel planted (nothing, when the sandbox holds)."""
    import errno

    libc = ctypes.CDLL(None, use_errno=True)
    found = {"request_key": _errno(libc.syscall(numbers["request_key"], b"user", tag.encode(), None, 0)),
             "keyctl_read_user_keyring": _errno(libc.syscall(numbers["keyctl"], 11, ctypes.c_int(-4), None, 0))}
    found["locks"] = _locks(shared)
    with open("/proc/locks") as fh:
        found["proc_locks"] = fh.read().splitlines()
    key = 0x51510000
    found["shmget"] = _errno(libc.shmget(key, 0, 0))
    found["msgget"] = _errno(libc.msgget(key, 0))
    found["semget"] = _errno(libc.semget(key, 0, 0))
    found["mq_open"] = _errno(libc.mq_open(f"/{tag}".encode(), os.O_RDONLY, 0, None))
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect("\0" + tag)
        found["abstract"] = "connected"
    except OSError as exc:
        found["abstract"] = errno.errorcode.get(exc.errno, "?")
    finally:
        client.close()
    found["files"] = [f"{folder}/{tag}" for folder in ("/tmp", "/dev/shm") if os.path.exists(f"{folder}/{tag}")]
    return found
