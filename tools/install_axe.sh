#!/usr/bin/env bash
# The newest axe-core from the npm registry for the accessibility audit
# (browser_tests/test_accessibility.py runs it beside the axe-core that the PyPI
# package axe-playwright-python bundles). browser_tests/package.json pins the
# version and package-lock.json its checksum; `npm ci` installs exactly that into
# browser_tests/node_modules. Idempotent: nothing to do when it is already there.
set -euo pipefail
cd "$(dirname "$0")/../browser_tests"

want=$(sed -n 's/^ *"axe-core": "\([0-9.]*\)".*/\1/p' package.json | head -n 1)
have=$(sed -n 's/^ *"version": "\([0-9.]*\)".*/\1/p' node_modules/axe-core/package.json 2>/dev/null | head -n 1 || true)
if [[ -n "$want" && "$have" == "$want" && -f node_modules/axe-core/axe.min.js ]]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install_axe.sh: the accessibility audit needs npm (Node.js) to install axe-core $want;" \
       "install Node.js, or run: npm ci --prefix browser_tests" >&2
  exit 1
fi
echo "Installing axe-core $want from the npm registry for the accessibility audit..."
npm ci --no-audit --no-fund --loglevel=error >/dev/null
test -f node_modules/axe-core/axe.min.js || { echo "install_axe.sh: axe-core did not install" >&2; exit 1; }
