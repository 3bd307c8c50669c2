#!/usr/bin/env bash
# Regenerate the README's screenshots under a virtual display with a window manager (Xvfb + openbox),
# so each shows the window as a user sees it, title bar included. Needs Xvfb, openbox, ImageMagick
# and ../shared (the corpus). Usage: bash docs/screenshots.sh [script.py ...]
set -euo pipefail
cd "$(dirname "$0")/.."
display=":$((90 + RANDOM % 9))$((RANDOM % 10))"
Xvfb "$display" -screen 0 1400x900x24 >/dev/null 2>&1 & xvfb=$!
sleep 1
DISPLAY="$display" openbox >/dev/null 2>&1 & wm=$!
trap 'kill $wm $xvfb 2>/dev/null || true' EXIT
sleep 1
scripts=("$@")
[ ${#scripts[@]} -gt 0 ] || scripts=(docs/screenshot*.py)
for script in "${scripts[@]}"; do
    echo "== $script"
    DISPLAY="$display" HOME="$(mktemp -d)" .venv/bin/python "$script"
done
