"""Reading a Piper VITS ONNX graph: checks against its config, and the split for streaming.

A Piper voice's graph maps ``input`` (phoneme_ids ``[B, T_ph]``), ``input_lengths``
``[B]``, ``scales`` ``[3]`` (noise_scale, length_scale, noise_w) and, for several
speakers, ``sid`` ``[B]`` to ``output`` (audio). Inside it runs, as in VITS
(Kim et al., ICML 2021, fig. 1b): text encoder and duration predictor, expansion
to frames plus prior noise (``z_p`` ``[B, C, T]`` with ``y_mask`` ``[B, 1, T]``),
the reverse flow (``z`` ``[B, C, T]``) and the HiFi-GAN decoder (``T * hop_length``
samples). Flow and decoder are stacks of convolutions, so both can run on
windows of frames; that is what lets us stream inside a sentence.

The cut points are found by the names the torch exporter gives (``dec.conv_pre``
and the ``/flow/`` scope), which every Piper export carries; where they cannot
be found the engine falls back to a coarser split or to the whole graph.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from engines.base import VoiceError
from engines.imports import importing
from engines.model_fit import check_model_fits
from engines.voice import VoiceConfig


@dataclass
class GraphInfo:
    """What the engine needs to know about a voice's ONNX graph.

    Attributes:
        inputs: graph input names.
        outputs: graph output names.
        embedding_rows: rows of the phoneme embedding (must equal num_symbols).
        speaker_rows: rows of the speaker embedding, or ``None`` without ``sid``.
        upsample: product of the decoder's transposed-convolution strides
            (samples per frame), or ``None`` if not found.
        z: decoder input tensor ``[B, C, T]``.
        z_p: flow input tensor ``[B, C, T]`` (prior sample).
        y_mask: frame mask ``[B, 1, T]``.
        durations: per-phoneme frame counts ``[B, 1, T_ph]`` (``w_ceil``).
    """

    inputs: list[str]
    outputs: list[str] = field(default_factory=list)
    embedding_rows: int | None = None
    speaker_rows: int | None = None
    upsample: int | None = None
    z: str | None = None
    z_p: str | None = None
    y_mask: str | None = None
    durations: str | None = None
    notes: list[str] = field(default_factory=list)


def load_model(path: Path):
    """Load an ONNX model with its weights.

    Raises:
        VoiceError: the file is missing or not an ONNX model.
    """
    with importing("onnx"):
        import onnx

    try:
        return onnx.load(str(path))
    except FileNotFoundError:
        raise VoiceError(path, "voice model file not found") from None
    except Exception as exc:  # onnx raises DecodeError and others for bad files
        detail = f"{type(exc).__name__}: {exc}"
        raise VoiceError(
            path, "not a valid ONNX model: the file is damaged or not an ONNX voice", detail=detail
        ) from None


def analyze(model) -> GraphInfo:
    """Find the embeddings, the upsampling factor and the cut tensors of a VITS graph."""
    graph = model.graph
    inits = {t.name: list(t.dims) for t in graph.initializer}
    info = GraphInfo(inputs=[i.name for i in graph.input], outputs=[o.name for o in graph.output])
    producers = {out: node for node in graph.node for out in node.output}
    strides, ceils = [], []
    for node in graph.node:
        if node.op_type == "Gather" and len(node.input) == 2 and node.input[0] in inits:
            if node.input[1] == "input":
                info.embedding_rows = inits[node.input[0]][0]
            elif node.input[1] == "sid":
                info.speaker_rows = inits[node.input[0]][0]
        elif node.op_type == "ConvTranspose" and _in_decoder(node):
            strides += [a.ints[0] for a in node.attribute if a.name == "strides"]
        elif node.op_type == "Ceil":
            ceils.append(node.output[0])
        elif node.op_type == "Conv" and _is_conv_pre(node):
            info.z = node.input[0]
    # VITS rounds durations up once (w_ceil = ceil(exp(logw) * length_scale)); two Ceils: unknown graph.
    info.durations = ceils[0] if len(ceils) == 1 else None
    info.upsample = math.prod(strides) if strides else None
    if info.z is None:
        info.notes.append("decoder input not found (no dec.conv_pre)")
        return info
    _find_flow_inputs(graph, producers, info)
    return info


def _in_decoder(node) -> bool:
    return node.name.startswith("/dec/") or any(i.startswith("dec.") for i in node.input)


def _is_conv_pre(node) -> bool:
    return node.name.endswith("/dec/conv_pre/Conv") or "dec.conv_pre.weight" in node.input


def _find_flow_inputs(graph, producers, info: GraphInfo) -> None:
    """Locate ``y_mask`` (the mask the flow output is multiplied by) and ``z_p``."""
    mul = producers.get(info.z)
    flow_nodes = [n for n in graph.node if n.name.startswith("/flow/")]
    if mul is None or mul.op_type != "Mul" or not flow_nodes:
        info.notes.append("flow not found; streaming decodes from a whole-sentence z")
        return
    flow_outputs = {out for n in flow_nodes for out in n.output}
    others = [i for i in mul.input if i not in flow_outputs]
    if len(others) != 1:
        info.notes.append("frame mask not found")
        return
    info.y_mask = others[0]
    dynamic = _descendants(graph, {i.name for i in graph.input})
    inside = _descendants(graph, flow_outputs)  # also unnamed nodes within the flow
    external = {
        i
        for n in flow_nodes
        for i in n.input
        if i in dynamic and i not in inside and i != info.y_mask and not _speaker_only(graph, i)
    }
    if len(external) == 1:
        info.z_p = external.pop()
    else:
        info.notes.append(f"flow input ambiguous: {sorted(external)}")


def _descendants(graph, sources: set[str]) -> set[str]:
    """``sources`` and every tensor computed from them (nodes are in topological order)."""
    reached = set(sources)
    for node in graph.node:
        if any(i in reached for i in node.input):
            reached.update(node.output)
    return reached


def graph_inputs_needed(graph, outputs: list[str], given: list[str]) -> set[str]:
    """Graph inputs reached walking back from ``outputs``, stopping at ``given`` tensors."""
    producers = {out: node for node in graph.node for out in node.output}
    names = {i.name for i in graph.input}
    seen, stack, needed = set(given), list(outputs), set()
    while stack:
        tensor = stack.pop()
        if tensor in seen:
            continue
        seen.add(tensor)
        if tensor in names:
            needed.add(tensor)
        node = producers.get(tensor)
        if node is not None:
            stack.extend(node.input)
    return needed


def _speaker_only(graph, tensor: str) -> bool:
    needed = graph_inputs_needed(graph, [tensor], [])
    return needed == {"sid"}


PIPER_INPUTS = ("input", "input_lengths", "scales")
"""Inputs every Piper voice's graph takes (``sid`` too where it has several speakers); its output is ``output``."""


def check_interface(info: GraphInfo, model_path: Path) -> None:
    """Check that a graph has a Piper voice's inputs and output (and no other inputs).

    Raises:
        VoiceError: naming the model file, the inputs and outputs it has and those a Piper voice has.
    """
    missing = [name for name in PIPER_INPUTS if name not in info.inputs]
    extra = [name for name in info.inputs if name not in (*PIPER_INPUTS, "sid")]
    if missing or extra or "output" not in info.outputs:
        raise VoiceError(
            model_path,
            f"not a Piper voice: its graph takes {', '.join(info.inputs) or 'nothing'} and gives "
            f"{', '.join(info.outputs) or 'nothing'}; a Piper voice takes {', '.join(PIPER_INPUTS)} (and sid) "
            "and gives output",
        )


def check_config(info: GraphInfo, config: VoiceConfig, model_path: Path) -> None:
    """Check that a graph is a Piper voice's (:func:`check_interface`) and that a config belongs to it.

    Raises:
        VoiceError: naming the model file when the graph is not a Piper voice's, or the config file and
            the field that disagrees with the model.
    """
    check_interface(info, model_path)
    check_model_fits(
        config,
        model_path.name,
        symbols=info.embedding_rows,
        speaker_input="sid" in info.inputs,
        speakers=info.speaker_rows,
        hop_length=info.upsample,
    )


class Splitter:
    """Cuts parts out of one model (``onnx.utils.Extractor``, built once)."""

    def __init__(self, model, cut_tensors: list[str]) -> None:
        with importing("onnx", "onnx.utils"):
            import onnx
            from onnx.utils import Extractor

        known = {v.name for v in (*model.graph.value_info, *model.graph.input, *model.graph.output)}
        for name in cut_tensors:  # exports may lack value_info for a cut tensor; all of them are float32
            if name not in known:
                model.graph.value_info.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
        self.graph = model.graph
        self._extractor = Extractor(model)

    def extract(self, inputs: list[str], outputs: list[str]) -> tuple[bytes, list[str]] | None:
        """The part from ``inputs`` to ``outputs``, serialized, with its input names.

        ``sid`` joins the inputs when the part depends on the speaker. Returns
        ``None`` when the part needs any other graph input (it cannot be cut there).
        """
        extra = graph_inputs_needed(self.graph, outputs, inputs) - set(inputs)
        if extra - {"sid"}:
            return None
        names = inputs + sorted(extra)
        try:
            part = self._extractor.extract_model(names, outputs)
        except Exception:  # a graph the extractor cannot cut: the caller falls back
            return None
        return part.SerializeToString(), names


RANDOM_OPS = ("RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike")


def seed_random_ops(model, seed: int) -> int:
    """Seed every random node of ``model`` in place from ``seed`` (>= 0); returns how many nodes.

    The ``seed`` attribute (ONNX spec: a float) is set to ``seed + 1``: ONNX Runtime seeds a ``minstd_rand0``
    with it, which replaces a seed of 0 by 1, so seeds 0 and 1 gave the same noise (measured: identical audio).
    """
    with importing("onnx"):
        import onnx

    count = 0
    for node in model.graph.node:
        if node.op_type in RANDOM_OPS:
            kept = [a for a in node.attribute if a.name != "seed"]
            del node.attribute[:]
            node.attribute.extend([*kept, onnx.helper.make_attribute("seed", float(seed + 1))])
            count += 1
    return count
