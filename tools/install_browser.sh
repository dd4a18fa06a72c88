#!/usr/bin/env bash
# Install the browser that browser_tests/ drives: Debian's `chromium` package.
# Idempotent: does nothing when a Chromium is already there (or $CHROMIUM names one).
# Playwright's own browser download is not used (it needs a host we cannot reach).
set -euo pipefail

if [[ -n "${CHROMIUM:-}" && -x "${CHROMIUM}" ]]; then
  exit 0
fi
if [[ -x /usr/lib/chromium/chromium ]] || command -v chromium >/dev/null 2>&1 \
   || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install_browser.sh: no Chromium and no apt-get; install Chromium and set CHROMIUM=/path/to/chromium" >&2
  exit 1
fi

SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  SUDO="sudo"
fi
echo "Installing Debian's chromium for the browser tests (about 30 s)..."
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "install_browser.sh: chromium did not install" >&2; exit 1; }
