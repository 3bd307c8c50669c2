"""Run in a process of its own by ``tests/test_sherpa_bundle.py``: the real sherpa-onnx speaks phonemes with a bundle.

sherpa-onnx carries its own onnxruntime library; it is kept out of the test process, which has onnxruntime's
Python package loaded. sherpa-onnx 2.x has no text front end for Piper voices (it dropped espeak-ng, k2-fsa/
sherpa-onnx#3731): it is given each sentence's phonemes as code points (``GenerationConfig.phoneme_codepoints``),
the way it takes an external phonemizer's, and frames them with ``tokens.txt`` itself.

Usage: ``python tests/sherpa_speak.py MODEL TOKENS REQUEST.json OUT.npz``; REQUEST is
``{"sentences": [[code point, ...], ...], "sid": 0}`` read at noise 0 and length scale 1. OUT gets ``samples``
(float32), ``sample_rate`` and ``num_speakers``; sherpa-onnx's debug log (with the token ids of each sentence)
goes to stderr.
"""

import json
import sys

import numpy as np
import sherpa_onnx


def main(model: str, tokens: str, request_path: str, out: str) -> None:
    with open(request_path, encoding="utf-8") as file:
        request = json.load(file)
    vits = sherpa_onnx.OfflineTtsVitsModelConfig(
        model=model, tokens=tokens, noise_scale=0.0, noise_scale_w=0.0, length_scale=1.0
    )
    config = sherpa_onnx.OfflineTtsConfig(model=sherpa_onnx.OfflineTtsModelConfig(vits=vits, num_threads=1, debug=True))
    tts = sherpa_onnx.OfflineTts(config)
    generation = sherpa_onnx.GenerationConfig()
    generation.phoneme_codepoints = request["sentences"]
    generation.sid = request["sid"]
    generation.silence_scale = 1.0  # sherpa-onnx shortens pauses by default (0.2); ours are the model's own
    audio = tts.generate("", generation)
    samples = np.asarray(audio.samples, np.float32)
    np.savez(out, samples=samples, sample_rate=audio.sample_rate, num_speakers=tts.num_speakers)


if __name__ == "__main__":
    main(*sys.argv[1:5])
