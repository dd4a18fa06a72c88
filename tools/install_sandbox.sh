#!/usr/bin/env bash
# Install what the grader's sandbox needs (tools/grader/sandbox.py): Debian's `bubblewrap` (bwrap),
# and the host user the students' code runs as, `gm-sandbox`: a system user with no home, no
# shell and no files, so that a kernel can read only what every user may read.
# Idempotent: does nothing when both are there.  The grader's tests need them; under CI=true
# they fail (they do not skip) when either is missing.
set -euo pipefail

SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  SUDO="sudo"
fi

if ! command -v bwrap >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_sandbox.sh: no bwrap and no apt-get; install bubblewrap with your system's package manager" >&2
    exit 1
  fi
  echo "Installing Debian's bubblewrap for the grader's sandbox..."
  # Another installer (tools/install_browser.sh) may hold the apt lock: wait for it.
  for _ in $(seq 60); do
    if $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap >/dev/null; then
      break
    fi
    sleep 5
  done
  command -v bwrap >/dev/null 2>&1 || { echo "install_sandbox.sh: bubblewrap did not install" >&2; exit 1; }
fi

if ! getent passwd gm-sandbox >/dev/null; then
  echo "Creating the system user gm-sandbox, which runs the students' code..."
  $SUDO useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
    --comment "genmodels grader sandbox, owns nothing" gm-sandbox
fi

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
