#!/usr/bin/env bash
# Install what the grader's sandbox needs (grader/sandbox.py): Debian's `bubblewrap` (bwrap)
# and `python3-seccomp` (libseccomp's own Python bindings, which build the seccomp filter of
# grader/syscalls.py), and the host users the students' code runs as, one per kernel graded at
# the same time: `gm-sandbox`, `gm-sandbox1` ... `gm-sandbox15`, system users with no home, no shell
# and no files, so that a kernel can read only what every user may read, and two kernels share no
# user (no keyring, no per-user limit).
# Idempotent: does nothing when all are there.  The grader's tests need them; under CI=true
# they fail (they do not skip) when either is missing.
set -euo pipefail

SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  SUDO="sudo"
fi

SECCOMP_BINDING=/usr/lib/python3/dist-packages/seccomp.cpython-311-x86_64-linux-gnu.so
if ! command -v bwrap >/dev/null 2>&1 || ! dpkg -s python3-seccomp >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_sandbox.sh: no apt-get; install bubblewrap and libseccomp's Python bindings" \
      "(python3-seccomp) with your system's package manager" >&2
    exit 1
  fi
  echo "Installing Debian's bubblewrap and python3-seccomp for the grader's sandbox..."
  # Another installer (tools/install_browser.sh) may hold the apt lock: wait for it.
  for _ in $(seq 60); do
    if $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
        bubblewrap python3-seccomp >/dev/null; then
      break
    fi
    sleep 5
  done
  command -v bwrap >/dev/null 2>&1 || { echo "install_sandbox.sh: bubblewrap did not install" >&2; exit 1; }
  dpkg -s python3-seccomp >/dev/null 2>&1 || { echo "install_sandbox.sh: python3-seccomp did not install" >&2; exit 1; }
fi
# The bindings are built for Debian's python3 (3.11 on Debian 12); the grader loads them from there
# into any CPython of the same minor version (grader/syscalls.py).
[[ -e "$SECCOMP_BINDING" ]] || echo "install_sandbox.sh: note: $SECCOMP_BINDING is not there; the grader" \
  "looks for the bindings of its own Python's version beside it" >&2

# One host user per kernel slot (grader/sandbox.py, MAX_SLOTS = 16): gm-sandbox, gm-sandbox1...
for slot in $(seq 0 15); do
  name=gm-sandbox
  [[ "$slot" -eq 0 ]] || name="gm-sandbox$slot"
  if ! getent passwd "$name" >/dev/null; then
    echo "Creating the system user $name, which runs the students' code..."
    $SUDO useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      --comment "genmodels grader sandbox, owns nothing" "$name"
  fi
done

# The grader runs bwrap as gm-sandbox, unprivileged: it needs unprivileged user namespaces. Ubuntu
# 24.04 (GitHub's ubuntu-24.04 runners) restricts them through AppArmor
# (kernel.apparmor_restrict_unprivileged_userns=1); the fix Ubuntu documents is a profile that lets
# bwrap create one (not tested on this project's machines, which have no AppArmor).
RESTRICT=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
if [[ -r "$RESTRICT" && "$(cat "$RESTRICT")" == "1" && ! -e /etc/apparmor.d/bwrap ]] \
    && command -v apparmor_parser >/dev/null 2>&1; then
  echo "Allowing bwrap to make user namespaces under AppArmor (/etc/apparmor.d/bwrap)..."
  printf '%s\n' 'abi <abi/4.0>,' 'include <tunables/global>' \
    "profile bwrap $(command -v bwrap) flags=(unconfined) {" '  userns,' '}' \
    | $SUDO tee /etc/apparmor.d/bwrap >/dev/null
  $SUDO apparmor_parser -r /etc/apparmor.d/bwrap
fi
