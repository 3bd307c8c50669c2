#!/usr/bin/env bash
# The CUDA checks (the GPU paths, the compiled Triton MAS) and the MAS benchmark, on a GPU machine
# prepared by tests/device/prepare.sh (its .whl/ and .device-cache/ carried along). Output goes to
# $OUT/cuda.log and $OUT/mas.log where the device tool sets OUT. `run.sh bench` instead trains the
# fine-tuning quality bench (tests/bench/finetune_quality.py --train-only) on the GPU from the carried
# .device-corpus/ (prepare.sh bench): each epoch's val_mel, KL and seconds go to $OUT/finetune.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1 VOICE_STUDIO_TEST_CACHE="$PWD/.device-cache"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch, lightning; print('torch', torch.__version__, 'lightning', lightning.__version__, torch.cuda.get_device_name())"
if [ "${1:-}" = bench ]; then
  python3 tests/bench/finetune_quality.py --train-only --device cuda --corpus .device-corpus --clips 160 \
    --epochs "${EPOCHS:-30}" --work /tmp/finetune 2>&1 | tee "${OUT:-/tmp}/finetune.log"
  exit "${PIPESTATUS[0]}"
fi
python3 -m pytest -q -p no:cacheprovider -rs -s tests/test_cuda.py tests/test_align_backends.py 2>&1 | tee "${OUT:-/tmp}/cuda.log"
python3 tests/bench/mas.py --device cuda --repeat 20 2>&1 | tee "${OUT:-/tmp}/mas.log"
