#!/usr/bin/env bash
# Prepare the CUDA checks for a GPU machine that has Python 3.12, torch, lightning and onnxruntime but
# no network (this workplace's device machine): run here, from the project root, with .venv built and
# ../shared present. Writes .whl/ (the wheels the checks need beyond that machine's packages, about
# 37 MB) and .device-cache/ (a training cache of 8 target-voice clips); both are git-ignored and travel
# with the device tool's `carry`. Then, on the device: `bash tests/device/run.sh`.
# `prepare.sh bench` also writes .device-corpus/ (the first 160 target-voice clips at 22,050 Hz, about
# 19 MB, git-ignored) for `run.sh bench`: the fine-tuning quality bench's training on the GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=.venv/bin/python
piper=$($py -m pip show piper-tts | sed -n 's/^Version: //p')
rm -rf .whl && mkdir .whl
$py -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .whl \
  "piper-tts==$piper" pathvalidate soundfile cffi pycparser soxr platformdirs
work=$(mktemp -d)
mkdir -p "$work/data/wavs"
head -n 8 ../shared/corpus/target-voice/metadata.csv > "$work/data/metadata.csv"
cut -d'|' -f1 "$work/data/metadata.csv" | while read -r id; do
  cp "../shared/corpus/target-voice/wavs/$id.flac" "$work/data/wavs/"
done
.venv/bin/voice-studio dataset import "$work/data" --project "$work/project" >/dev/null
rm -rf .device-cache
.venv/bin/voice-studio dataset cache "$work/project" --out .device-cache >/dev/null
rm -rf "$work"
# the cache names its voice config by absolute path; the device has no such file: keep a copy inside
$py - <<'PY'
import json, shutil
from pathlib import Path
manifest = Path(".device-cache/cache.json")
document = json.loads(manifest.read_text(encoding="utf-8"))
shutil.copy(document["voice_config"], ".device-cache/voice.onnx.json")
document["voice_config"] = "voice.onnx.json"
manifest.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
PY
du -sh .whl .device-cache
if [ "${1:-}" = bench ]; then
  rm -rf .device-corpus && mkdir -p .device-corpus/wavs
  head -n 160 ../shared/corpus/target-voice/metadata.csv > .device-corpus/metadata.csv
  $py - <<'PY'
from pathlib import Path
import soundfile, soxr
source = Path("../shared/corpus/target-voice/wavs")
for row in Path(".device-corpus/metadata.csv").read_text(encoding="utf-8").splitlines():
    clip = row.split("|")[0]
    audio, rate = soundfile.read(source / f"{clip}.flac", dtype="float32")
    soundfile.write(f".device-corpus/wavs/{clip}.flac", soxr.resample(audio, rate, 22050, "VHQ"), 22050, subtype="PCM_16")
PY
  du -sh .device-corpus
fi
