#!/usr/bin/env bash
# Install the TeX Live pieces `make pdf` needs, from Debian's packages (about 400 MB).
# Idempotent: does nothing when xelatex, latexmk, xindy, tabulary.sty and poppler's
# pdftotext/pdfimages (which pdf_tests/ read the PDF back with) are all present.
set -euo pipefail

if command -v xelatex >/dev/null 2>&1 && command -v latexmk >/dev/null 2>&1 \
   && command -v xindy >/dev/null 2>&1 && kpsewhich tabulary.sty >/dev/null 2>&1 \
   && command -v pdftotext >/dev/null 2>&1 && command -v pdfimages >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install_tex.sh: no apt-get; install XeLaTeX, latexmk and xindy from your TeX distribution" >&2
  exit 1
fi
SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  SUDO="sudo"
fi
echo "Installing TeX Live for the PDF (about 400 MB, a few minutes, once)..."
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
  texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-xetex \
  latexmk xindy fonts-freefont-otf poppler-utils >/dev/null
