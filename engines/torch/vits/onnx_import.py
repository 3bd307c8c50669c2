"""Rebuild a torch generator from a Piper ONNX voice.

An exported Piper voice keeps most weights as named initializers
(``enc_p.encoder.attn_layers.0.conv_q.weight``...). Others were constant-folded
by the exporter and lost their names: weight-normalized convolutions became
plain weights (``onnx::Conv_8168``), the phoneme embedding may be called
``sid``, ``ElementwiseAffine.logs`` appears only as ``exp(-logs)`` or ``-logs``. Those are
found through the node that consumes them, whose name carries the module path
(``/flow/flows.6/enc/in_layers.0/Conv`` -> ``flow.flows.6.enc.in_layers.0``).
A folded weight-normalized weight w is stored back as v = w, g = ||w||, which
gives the same w. A graph exported with weight norm in place (older exports of
this studio) holds ``X.weight_g`` and ``X.weight_v``; they are combined into w.

An ONNX voice holds only the inference path: the posterior encoder (``enc_q``),
the training-only parts of the stochastic duration predictor (``dp.post_*`` and
``dp.flows.1``) are not in it; the report lists them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from engines.base import VoiceError
from engines.imports import importing
from engines.torch.vits.config import VitsConfig
from engines.torch.vits.models import Synthesizer
from engines.torch.vits.weight_norm import _WeightNorm


@dataclass
class ImportReport:
    """What the import recovered.

    Attributes:
        loaded: parameter names set from the ONNX graph.
        missing: parameter names the graph does not hold (left at their initial values).
        unused: ONNX weight initializers that mapped to no parameter.
    """

    loaded: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)

    def missing_modules(self) -> list[str]:
        """Missing parameters grouped by module, e.g. ``enc_q``, ``dp.post_flows``, ``dp.flows.1``."""
        groups = set()
        for name in self.missing:
            parts = name.split(".")
            keep = 3 if parts[:2] == ["dp", "flows"] else 2 if parts[0] == "dp" else 1
            groups.add(".".join(parts[:keep]))
        return sorted(groups)


def load_onnx_generator(model_path: Path, num_speakers: int = 1) -> tuple[Synthesizer, ImportReport]:
    """Build a :class:`Synthesizer` whose inference equals the ONNX voice's.

    Raises:
        VoiceError: the file is not a Piper VITS voice (names the missing part).
    """
    from engines.onnx.graph import load_model

    model = load_model(model_path)
    weights = _weights_by_module(model)
    config = _config_from_graph(model, weights, model_path, num_speakers)
    synthesizer = Synthesizer(config).eval()
    report = _assign(synthesizer, weights)
    return synthesizer, report


def _module_path(node_name: str) -> str:
    """``/flow/flows.6/enc/in_layers.0/Conv`` -> ``flow.flows.6.enc.in_layers.0``."""
    return ".".join(node_name.strip("/").split("/")[:-1])


def _weights_by_module(model) -> dict[str, np.ndarray]:
    """Parameter name -> array for every weight the graph holds (effective weights for folded ones)."""
    with importing("onnx"):
        from onnx import numpy_helper

    inits = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:  # the exporter keeps one of equal initializers; the others become Identity nodes
        if node.op_type == "Identity" and node.input[0] in inits:
            inits[node.output[0]] = inits[node.input[0]]
    weights: dict[str, np.ndarray] = {}
    for name, tensor in inits.items():
        if re.fullmatch(r"[a-z_]+(\.[\w]+)+", name) and not name.startswith("onnx::"):
            weights[name] = numpy_helper.to_array(tensor)
    for node in model.graph.node:
        module = _module_path(node.name)
        if node.op_type in ("Conv", "ConvTranspose") and module:
            for suffix, index in (("weight", 1), ("bias", 2)):
                if len(node.input) > index and node.input[index] in inits:
                    weights.setdefault(f"{module}.{suffix}", numpy_helper.to_array(inits[node.input[index]]))
        elif node.op_type == "Gather" and node.input[0] in inits and module in ("enc_p.emb", "emb_g"):
            weights[f"{module}.weight"] = numpy_helper.to_array(inits[node.input[0]])
        elif node.op_type == "Mul" and re.fullmatch(r"dp\.flows\.\d+", module):
            # ElementwiseAffine in reverse computes (x - m) * exp(-logs): the exporter folds exp(-logs).
            for name in node.input:
                if name in inits and name.endswith("/Exp_output_0"):
                    weights[f"{module}.logs"] = -np.log(numpy_helper.to_array(inits[name]))
        elif node.op_type == "Exp" and re.fullmatch(r"dp\.flows\.\d+", module) and node.input[0] in inits:
            # ... or folds only -logs, leaving the Exp (newer torch exporters, our own exports).
            weights[f"{module}.logs"] = -numpy_helper.to_array(inits[node.input[0]])
    return _merge_weight_norm(weights)


def _merge_weight_norm(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``X.weight_g`` and ``X.weight_v`` (a graph exported with weight norm in place) -> ``X.weight``.

    w = g * v / ||v||, the norm over every dimension but the first, as
    ``engines.torch.vits.weight_norm`` computes it.
    """
    for name in [n for n in weights if n.endswith(".weight_v")]:
        base = name.removesuffix("_v")
        if base + "_g" in weights:
            v, g = weights.pop(name), weights.pop(base + "_g")
            norm = np.sqrt(np.square(v).sum(axis=tuple(range(1, v.ndim)), keepdims=True))
            weights.setdefault(base, v * (g / norm))
    return weights


def _config_from_graph(model, weights, model_path: Path, num_speakers: int) -> VitsConfig:
    def need(name: str) -> np.ndarray:
        if name not in weights:
            raise VoiceError(model_path, f"not a Piper VITS voice: no '{name}' in the graph")
        return weights[name]

    emb = need("enc_p.emb.weight")
    proj = need("enc_p.proj.weight")
    ffn = need("enc_p.encoder.ffn_layers.0.conv_1.weight")
    rel = need("enc_p.encoder.attn_layers.0.emb_rel_k")
    n_layers = len({n for n in weights if n.startswith("enc_p.encoder.attn_layers.") and n.endswith("conv_q.weight")})
    ups = sorted({int(n.split(".")[2]) for n in weights if n.startswith("dec.ups.")})
    strides = _decoder_strides(model)
    blocks = sorted({int(n.split(".")[2]) for n in weights if n.startswith("dec.resblocks.")})
    per_up = len(blocks) // max(1, len(ups))
    resblock = "1" if any(".convs1." in n for n in weights if n.startswith("dec.resblocks.")) else "2"
    first_convs = "convs1" if resblock == "1" else "convs"
    dilations = _resblock_dilations(model, per_up, first_convs)
    gin = weights["emb_g.weight"].shape[1] if "emb_g.weight" in weights else 0
    return VitsConfig(
        num_symbols=emb.shape[0],
        num_speakers=max(num_speakers, weights["emb_g.weight"].shape[0] if "emb_g.weight" in weights else 1),
        inter_channels=proj.shape[0] // 2,
        hidden_channels=emb.shape[1],
        filter_channels=ffn.shape[0],
        n_heads=emb.shape[1] // rel.shape[2],
        n_layers=n_layers,
        kernel_size=ffn.shape[2],
        resblock=resblock,
        resblock_kernel_sizes=tuple(
            weights[f"dec.resblocks.{j}.{first_convs}.0.weight"].shape[2] for j in range(per_up)
        ),
        resblock_dilation_sizes=dilations,
        upsample_rates=tuple(strides),
        upsample_initial_channel=need("dec.conv_pre.weight").shape[0],
        upsample_kernel_sizes=tuple(weights[f"dec.ups.{i}.weight"].shape[2] for i in ups),
        gin_channels=gin,
        use_sdp=any(n.startswith("dp.flows.") for n in weights),
    )


def _decoder_strides(model) -> list[int]:
    strides = {}
    for node in model.graph.node:
        match = re.fullmatch(r"dec\.ups\.(\d+)", _module_path(node.name))
        if node.op_type == "ConvTranspose" and match:
            strides[int(match.group(1))] = next(a.ints[0] for a in node.attribute if a.name == "strides")
    return [strides[i] for i in sorted(strides)]


def _resblock_dilations(model, per_up: int, first_convs: str) -> tuple[tuple[int, ...], ...]:
    found: dict[int, dict[int, int]] = defaultdict(dict)
    for node in model.graph.node:
        match = re.fullmatch(rf"dec\.resblocks\.(\d+)\.{first_convs}\.(\d+)", _module_path(node.name))
        if node.op_type == "Conv" and match and int(match.group(1)) < per_up:
            dilation = next((a.ints[0] for a in node.attribute if a.name == "dilations"), 1)
            found[int(match.group(1))][int(match.group(2))] = dilation
    return tuple(tuple(found[j][k] for k in sorted(found[j])) for j in range(per_up))


def _assign(synthesizer: Synthesizer, weights: dict[str, np.ndarray]) -> ImportReport:
    report = ImportReport()
    used = set()
    modules = dict(synthesizer.named_modules())
    with torch.no_grad():
        for name, param in synthesizer.named_parameters():
            module_name, _, attr = name.rpartition(".")
            module = modules[module_name]
            source = f"{module_name}.weight" if isinstance(module, _WeightNorm) and attr.startswith("weight_") else name
            if source not in weights:
                report.missing.append(name)
                continue
            value = torch.from_numpy(np.array(weights[source])).to(param.dtype)
            if attr == "weight_g":
                value = value.pow(2).sum(dim=tuple(range(1, value.dim())), keepdim=True).sqrt()
            if value.shape != param.shape:
                raise VoiceError(name, f"shape {tuple(value.shape)} in the graph, {tuple(param.shape)} expected")
            param.copy_(value)
            report.loaded.append(name)
            used.add(source)
    report.unused = sorted(set(weights) - used)
    return report
