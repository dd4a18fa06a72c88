"""The system calls a student's kernel may make: Docker's default seccomp profile, made tighter.

Every process of a sandbox runs under a seccomp filter that bubblewrap loads
before it starts the kernel (``bwrap --seccomp FD``, :mod:`grader.sandbox`).
The filter is built here with libseccomp's own Python bindings (Debian's
``python3-seccomp``, installed by ``tools/install_sandbox.sh``) from

* Docker's default profile, ``docker_seccomp.json`` beside this file (moby's
  ``profiles/seccomp/default.json`` at commit cd3bed8061c7, as published):
  an allow-list with every other call refused (``EPERM``), read as Docker
  reads it for a container with no capability on this machine's
  architecture. Its rules that need a capability or a minimum kernel
  (``ptrace``, ``process_vm_readv``/``writev`` from Linux 4.8) are left out,
  so those are refused too; ``clone3`` answers ``ENOSYS`` (glibc then uses
  ``clone``), and ``clone`` is refused with any namespace flag;
* what two kernels graded side by side could talk through, or a kernel could
  leave behind for the next one: the keyring (``add_key``, ``keyctl``,
  ``request_key``: Docker refuses them as well), file locks (``flock``, and
  ``fcntl``'s lock and lease commands: a read lock needs only read
  permission, so two kernels could signal bits through the locks of any file
  both can read).

Only this machine's native architecture is allowed: a 32-bit call
(``int 0x80``) kills the process. :func:`denied` names every call the filter
refuses, for the tests (``tests/test_sandbox_audit.py``) to compare with
Docker's list.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import platform
import sysconfig
from pathlib import Path

PROFILE = Path(__file__).with_name("docker_seccomp.json")
DEBIAN_BINDING = "/usr/lib/python3/dist-packages/seccomp"  # + this Python's extension suffix
# Beyond Docker's profile: the kernels' channels to each other (issue 51).
KEYRING = ("add_key", "keyctl", "request_key")
LOCKS = ("flock",)
# fcntl's commands (<linux/fcntl.h>, <asm-generic/fcntl.h>): all but the locks and leases are allowed.
FCNTL_LOCKS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37,
               "F_OFD_SETLKW": 38, "F_SETLEASE": 1024, "F_GETLEASE": 1025}
FCNTL_ALLOWED = {"F_DUPFD": 0, "F_GETFD": 1, "F_SETFD": 2, "F_GETFL": 3, "F_SETFL": 4, "F_SETOWN": 8,
                 "F_GETOWN": 9, "F_SETSIG": 10, "F_GETSIG": 11, "F_SETOWN_EX": 15, "F_GETOWN_EX": 16,
                 "F_GETOWNER_UIDS": 17, "F_NOTIFY": 1026, "F_DUPFD_CLOEXEC": 1030, "F_SETPIPE_SZ": 1031,
                 "F_GETPIPE_SZ": 1032, "F_ADD_SEALS": 1033, "F_GET_SEALS": 1034, "F_GET_RW_HINT": 1035,
                 "F_SET_RW_HINT": 1036, "F_GET_FILE_RW_HINT": 1037, "F_SET_FILE_RW_HINT": 1038}
_ARCHES = {"x86_64": "amd64", "aarch64": "arm64"}  # Docker's names for this machine's architecture


class SeccompUnavailable(RuntimeError):
    """libseccomp's Python bindings cannot be loaded by this Python."""


@functools.lru_cache(maxsize=None)
def binding():
    """libseccomp's own bindings: ``import seccomp`` if this Python has them, else Debian's build of them.

    Debian's ``python3-seccomp`` is built for Debian's Python; its extension loads in any CPython of
    the same minor version (the same ABI, the same file suffix), such as the pyenv Python of this project.
    """
    try:
        import seccomp

        return seccomp
    except ImportError:
        pass
    path = DEBIAN_BINDING + sysconfig.get_config_var("EXT_SUFFIX")
    if not os.path.exists(path):
        raise SeccompUnavailable(f"no libseccomp bindings for this Python ({path} is missing): run "
                                 "tools/install_sandbox.sh (Debian's python3-seccomp), with a Python of the "
                                 "minor version Debian's python3 has")
    spec = importlib.util.spec_from_file_location("seccomp", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:
        raise SeccompUnavailable(f"libseccomp's bindings do not load: {exc}") from None
    return module


def _docker_rules(arch):
    """Docker's rules that apply to a container with no capability on ``arch``: (action, names, args)."""
    profile = json.loads(PROFILE.read_text())
    rules = []
    for rule in profile["syscalls"]:
        includes, excludes = rule.get("includes", {}), rule.get("excludes", {})
        if includes.get("caps") or includes.get("minKernel"):
            continue  # needs a capability, or a newer kernel than Docker assumes: refused here
        if "arches" in includes and arch not in includes["arches"]:
            continue
        if arch in excludes.get("arches", ()):
            continue
        rules.append((rule["action"], rule.get("errnoRet"), rule["names"], rule.get("args") or []))
    return profile["defaultErrnoRet"], rules


@functools.lru_cache(maxsize=None)
def bpf():
    """The filter as a classic BPF program (bytes), as ``bwrap --seccomp`` reads it."""
    import tempfile

    with tempfile.TemporaryFile() as fh:
        _filter().export_bpf(fh)
        fh.seek(0)
        return fh.read()


def _filter():
    sc = binding()
    arch = _ARCHES.get(platform.machine(), platform.machine())
    default_errno, rules = _docker_rules(arch)
    ops = {"SCMP_CMP_EQ": sc.EQ, "SCMP_CMP_NE": sc.NE, "SCMP_CMP_LT": sc.LT, "SCMP_CMP_LE": sc.LE,
           "SCMP_CMP_GT": sc.GT, "SCMP_CMP_GE": sc.GE, "SCMP_CMP_MASKED_EQ": sc.MASKED_EQ}
    refused = set(KEYRING) | set(LOCKS) | {"fcntl"}  # fcntl: allowed below, command by command
    f = sc.SyscallFilter(sc.ERRNO(default_errno))
    f.set_attr(sc.Attr.CTL_OPTIMIZE, 2)  # a binary tree of the ~370 calls: a few comparisons per call, not hundreds
    for action, errno_ret, names, args in rules:
        for name in names:
            if name in refused:
                continue
            if _number(sc, name) is None:
                continue  # a call this libseccomp or this architecture does not have: refused
            if action == "SCMP_ACT_ALLOW":
                act = sc.ALLOW
            elif action == "SCMP_ACT_ERRNO":
                act = sc.ERRNO(errno_ret or default_errno)
            else:
                raise ValueError(f"Docker's profile has an action this reader does not know: {action}")
            comparisons = [sc.Arg(a["index"], ops[a["op"]], a["value"], a.get("valueTwo", 0))
                           if a["op"] == "SCMP_CMP_MASKED_EQ" else sc.Arg(a["index"], ops[a["op"]], a["value"])
                           for a in args]
            f.add_rule(act, name, *comparisons)
    for command in FCNTL_ALLOWED.values():
        f.add_rule(sc.ALLOW, "fcntl", sc.Arg(1, sc.EQ, command))
    return f


def denied(names):
    """The names among ``names`` that the filter refuses whatever their arguments (for the tests).

    Read from the filter's own text (libseccomp's PFC export): a call is refused when no rule of
    its own allows it (with no rule at all, the default action refuses it with EPERM).
    """
    import re
    import tempfile

    with tempfile.TemporaryFile("w+") as fh:
        _filter().export_pfc(fh)
        fh.seek(0)
        text = fh.read()
    allowed = set()
    for block in text.split("# filter for syscall ")[1:]:
        match = re.match(r'"([^"]+)"', block)
        if match and "action ALLOW" in block:
            allowed.add(match.group(1))
    return [name for name in names if name not in allowed]


def number(name):
    """The number of system call ``name`` on this machine (for the grader's own calls), or None."""
    return _number(binding(), name)


def _number(sc, name):
    """The call's number on this machine, or None when it has none (libseccomp answers a negative number)."""
    try:
        number = sc.resolve_syscall(sc.Arch.NATIVE, name)
    except (ValueError, RuntimeError):
        return None
    return number if number >= 0 else None

