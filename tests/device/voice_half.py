"""Carry a Piper voice to the GPU machine at half its size: its float32 weights as float16, rebuilt there.

The device tool carries at most 64 MiB with the working tree and the default voice (en_US-joe-medium) is 63 MB
of float32 weights; as float16 they are 32 MB. ``pack VOICE.onnx OUT`` writes ``OUT.onnx`` (the voice with
every float32 initializer stored as float16 bits in a ``UINT16`` tensor of the same name) and copies the
``.onnx.json`` beside it; ``unpack PACKED.onnx OUT.onnx`` turns them back into float32. The rebuilt voice is
joe rounded to float16 (relative error per weight at most 2**-11, about 4.9e-4), so the GPU runs start from that
voice and score it as their start. Needs only ``onnx`` and ``numpy`` (both on the GPU machine).

Usage: ``python tests/device/voice_half.py pack|unpack SOURCE TARGET``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

HALF_MARK = "voice_half"
"""The model's metadata key that marks a packed voice (its value lists nothing; its presence is the mark)."""


def pack(source: Path, target: Path) -> None:
    """Write ``target`` (``.onnx``) as ``source`` with float32 initializers as float16 bits, and its config."""
    model = onnx.load(str(source))
    for index, tensor in enumerate(model.graph.initializer):
        if tensor.data_type == onnx.TensorProto.FLOAT:
            bits = numpy_helper.to_array(tensor).astype(np.float16).view(np.uint16)
            model.graph.initializer[index].CopyFrom(numpy_helper.from_array(bits, tensor.name))
    onnx.helper.set_model_props(model, {HALF_MARK: "1"})
    onnx.save(model, str(target))
    shutil.copy(f"{source}.json", f"{target}.json")


def unpack(source: Path, target: Path) -> None:
    """Write ``target`` as the float32 voice ``source`` (:func:`pack`'s output) holds, and its config."""
    model = onnx.load(str(source))
    for index, tensor in enumerate(model.graph.initializer):
        if tensor.data_type == onnx.TensorProto.UINT16:
            weights = numpy_helper.to_array(tensor).view(np.float16).astype(np.float32)
            model.graph.initializer[index].CopyFrom(numpy_helper.from_array(weights, tensor.name))
    kept = [p for p in model.metadata_props if p.key != HALF_MARK]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    target.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(target))
    shutil.copy(f"{source}.json", f"{target}.json")


if __name__ == "__main__":
    verb, source, target = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    {"pack": pack, "unpack": unpack}[verb](source, target)
