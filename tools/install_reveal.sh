#!/usr/bin/env bash
# reveal.js from the npm registry for the lecture slides (make slides; _ext/slide_decks.py copies it next to
# the decks). browser_tests/package.json pins the version and package-lock.json its checksum (beside
# axe-core, tools/install_axe.sh); `npm ci` installs exactly that into browser_tests/node_modules.
# Idempotent: nothing to do when it is already there.
set -euo pipefail
cd "$(dirname "$0")/../browser_tests"

want=$(sed -n 's/^ *"reveal.js": "\([0-9.]*\)".*/\1/p' package.json | head -n 1)
have=$(sed -n 's/^ *"version": "\([0-9.]*\)".*/\1/p' node_modules/reveal.js/package.json 2>/dev/null | head -n 1 || true)
if [[ -n "$want" && "$have" == "$want" && -f node_modules/reveal.js/dist/reveal.js ]]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install_reveal.sh: the slides need npm (Node.js) to install reveal.js $want;" \
       "install Node.js, or run: npm ci --prefix browser_tests" >&2
  exit 1
fi
echo "Installing reveal.js $want from the npm registry for the slides..."
npm ci --no-audit --no-fund --loglevel=error >/dev/null
test -f node_modules/reveal.js/dist/reveal.js || { echo "install_reveal.sh: reveal.js did not install" >&2; exit 1; }
