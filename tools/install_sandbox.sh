#!/usr/bin/env bash
# Install what the grader's sandbox needs (tools/sandbox.py): Debian's `bubblewrap` (bwrap).
# Idempotent: does nothing when bwrap is already there.  The grader's tests need it; under
# CI=true they fail (they do not skip) when it is missing.
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install_sandbox.sh: no bwrap and no apt-get; install bubblewrap with your system's package manager" >&2
  exit 1
fi
SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  SUDO="sudo"
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
