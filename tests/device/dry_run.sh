#!/usr/bin/env bash
# Issue 35's device script (tests/device/run.sh) on this CPU with tiny sizes, in a copy of the checkout with no
# ../shared beside it and a Python environment shaped like the GPU machine's (torch, lightning, triton, numba,
# onnxruntime, onnx, numpy, scipy, pytest...; nothing of ours): finds a missing package or a broken path
# before device time is spent. Needs .device (tests/device/prepare.sh). PY_ENV: that environment's bin folder
# (made with python -m venv and those packages); SIM_SITE: cp311 builds of the carried compiled packages where
# the environment is not Python 3.12 (pydantic-core, cffi).
set -euo pipefail
cd "$(dirname "$0")/../.."
dry=$(mktemp -d)/main
mkdir -p "$dry"
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$dry"
cp -r .device "$dry/"
cd "$dry"
export PATH="${PY_ENV:?a device-like environment\'s bin folder}:$PATH" OUT=${OUT:-$dry/out}
rm -rf /tmp/site /tmp/joe /tmp/finetune /tmp/speed
DEVICE=cpu FT_SECONDS=${FT_SECONDS:-150} FT_EPOCHS=2 FT_EVERY=1 FT_CLIPS=24 SPEED_CLIPS=8 SPEED_EPOCHS=1 STREAMS=1,2 \
  bash tests/device/run.sh "$@"
echo "out: $OUT"
