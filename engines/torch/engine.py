"""Torch engine: Piper voices on the CPU or a CUDA GPU, streamed like the ONNX engine.

The generator comes from an ONNX voice (``engines.torch.vits.onnx_import``) or a Piper
checkpoint (``engines.torch.vits.checkpoint``). All sentences of a text block go through
the text encoder and duration predictor in one batched forward; each sentence's
flow and decoder then run on windows of frames (``engines.stream_plan``). Tensors
stay on the device; only each chunk to play is copied to the CPU.

On the CPU two things differ. Phonemes and frame windows are padded (under their
masks, which changes no sample) to a few fixed lengths, since oneDNN compiles
kernels for each new shape. And the request's first sentence is encoded alone
before the rest of its block: a CPU gains nothing from batching, and the first
audio then waits for one sentence's prior only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engines.base import EngineError, SynthesisOptions
from engines.extras import explain
from engines.imports import importing
from engines.sentence_loop import LocalEngine
from engines.stream_plan import ChunkPlan, FlowWindows, stream_chunks
from engines.voice import Voice, load_voice

if TYPE_CHECKING:
    import torch

    from engines.torch.vits.models import Synthesizer

_LOGGER = logging.getLogger(__name__)

MAX_BATCH = 16
"""Sentences encoded together at most (one text block holds about 1,000 characters)."""

BATCH_DECODE_VARIABLE = "VOICE_STUDIO_DECODE_BATCH"
"""Environment variable that decides ``batch_decode`` where the caller leaves it ``None`` (``1`` on, ``0`` off),
for benchmarks of a server whose engines are made for it (``tests/bench/gpu_streams.py --batch-decode``)."""


DEVICE_PATTERN = re.compile(r"auto|cpu|cuda(:\d+)?")
"""Device names the engine takes."""


def pick_device(device: str = "auto") -> str:
    """``auto`` -> ``cuda`` when a CUDA GPU is usable, else ``cpu``; ``cpu``, ``cuda`` and ``cuda:N`` as given.

    Raises:
        EngineError: an unknown device name, or ``cuda`` asked for but not available.
    """
    if not DEVICE_PATTERN.fullmatch(device):
        raise EngineError(f"unknown device {device!r}: use auto, cpu, cuda or cuda:N")
    with importing("torch"):
        import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise EngineError("CUDA was requested but no CUDA GPU is available to torch")
    return device


def device_label(device: str) -> str:
    """Human label, e.g. ``CUDA (NVIDIA GeForce RTX 3080 Ti)`` or ``CPU``."""
    with importing("torch"):
        import torch

    if device.startswith("cuda"):
        return f"CUDA ({torch.cuda.get_device_name(torch.device(device))})"
    return "CPU"


@dataclass
class _Request:
    scales: tuple[float, float, float]
    sid: torch.Tensor | None


def _batch_decode(asked: bool | None, device: str, own_generator: bool) -> bool:
    """Whether an engine batches its decoder calls: ``asked`` where given, else :data:`BATCH_DECODE_VARIABLE` where
    set to ``0`` or ``1``, else on CUDA with the voice's own generator.

    Raises:
        EngineError: the variable holds anything else.
    """
    import os

    if asked is not None:
        return asked
    forced = os.environ.get(BATCH_DECODE_VARIABLE, "")
    if forced not in ("", "0", "1"):
        raise EngineError(f"{BATCH_DECODE_VARIABLE} must be 0 or 1, not {forced!r}")
    return forced == "1" if forced else device.startswith("cuda") and own_generator


class TorchEngine(LocalEngine):
    """Streams a Piper voice with the torch VITS generator.

    Args:
        voice: the voice (its ``.onnx`` is imported into torch) — or use
            :meth:`from_checkpoint` for a ``.ckpt``.
        device: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.
        compile: ``torch.compile`` the decoder on CUDA, warmed up at load.
        plan: chunk sizes and context.
        batch_decode: run the decoder calls of the engines sharing this voice's generator that come at once as
            one batch (``engines.torch.decode_batch``); ``None``: as :data:`BATCH_DECODE_VARIABLE` says, else on
            CUDA (where a batch of 16 costs about 2 of one), not on the CPU (where it costs 16) nor with
            ``compile`` or a ``model`` given.

    Raises:
        EngineError: torch missing, or CUDA requested but absent.
        VoiceError: the voice cannot be imported.
    """

    name = "torch"
    batch_size = MAX_BATCH

    def __init__(
        self,
        voice: Voice,
        *,
        device: str = "auto",
        compile: bool = False,
        plan: ChunkPlan | None = None,
        model: Synthesizer | None = None,
        batch_decode: bool | None = None,
    ) -> None:
        if needs_torch := explain("torch", "The torch engine"):
            raise EngineError(needs_torch)
        with importing("torch"):
            import torch
        super().__init__(voice, plan)
        self.device = pick_device(device)
        self.import_report = None
        self._loaded = None  # the voice's generator as shared (engines.torch.loaded); None: a model was given
        if model is None:
            from engines.torch.loaded import loaded_generator

            self._loaded = loaded_generator(voice, self.device)
            model, self.import_report = self._loaded.model, self._loaded.import_report
        else:
            with importing("engines.torch.vits.weight_norm"):
                from engines.torch.vits.weight_norm import fold_weight_norm

            model = fold_weight_norm(model.to(self.device).eval())
        self._check_config(model)
        self.model = model
        self._torch = torch
        self._decode: Callable[..., torch.Tensor] = self.model.decode
        self._padded = self.device == "cpu"  # lengths from a few sizes, see engines.torch.vits.commons.padded_length
        if self.device == "cpu":
            with importing("engines.torch.vits.fast_decoder"):
                from engines.torch.vits.fast_decoder import ChannelsLastDecoder

            self._decode = ChannelsLastDecoder(self.model.dec).eval()  # 2-3x faster convolutions on the CPU
        if compile and self.device.startswith("cuda"):
            self._decode = torch.compile(self.model.decode, dynamic=True)
            self._warm_up()
        elif _batch_decode(batch_decode, self.device, self._loaded is not None):
            if self._loaded is None:
                raise EngineError("batch_decode needs the voice's own generator (model=None)")
            self._decode = self._loaded.batcher()  # concurrent engines of this voice: one decoder call
            self._padded = False  # windows go as they are: the batcher decodes one length per call

    def _check_config(self, model) -> None:
        """The voice's config fits the generator, as the ONNX engine checks it against its graph.

        Raises:
            VoiceError: naming the config and the field.
        """
        from engines.model_fit import check_model_fits

        imported = self.import_report.loaded if self.import_report else dict(model.named_parameters())
        check_model_fits(
            self.voice.config,
            self.voice.model_path.name,
            symbols=model.config.num_symbols,
            speaker_input="emb_g.weight" in imported,
            hop_length=model.config.hop_length,
        )

    @classmethod
    def from_path(cls, path: Path | str, **kwargs) -> TorchEngine:
        """An engine for ``NAME.onnx`` (with its ``.onnx.json``) or a Piper ``.ckpt``."""
        path = Path(path)
        if path.suffix.lower() == ".ckpt":
            from engines.torch.vits.checkpoint import load_checkpoint_voice

            return cls(load_checkpoint_voice(path), **kwargs)
        return cls(load_voice(path), **kwargs)

    @property
    def device_label(self) -> str:
        """``CPU`` or ``CUDA (GPU name)``."""
        return device_label(self.device)

    def _warm_up(self) -> None:
        """Run a sentence so compilation happens now, not in the first request."""
        for _ in self.synthesize("Warming up the decoder."):
            pass

    def _length(self, n: int) -> int:
        """Tensor length for ``n`` real phonemes or frames: padded on the CPU, where each new shape costs."""
        if not self._padded:
            return n
        with importing("engines.torch.vits.commons"):
            from engines.torch.vits.commons import padded_length

        return padded_length(n)

    def _prepare(self, options: SynthesisOptions) -> _Request:
        sid = self.config.speaker_id(options.speaker)
        tensor = None if sid is None else self._torch.tensor([sid], device=self.device)
        return _Request(self.scales(options), tensor)

    def _synthesize_batch(self, batch, request: _Request, clock, cancel):
        if self._padded and batch[0].index == 0 and len(batch) > 1:
            # On the CPU a batch computes no faster than its sentences one by one, so the
            # request's first sentence goes alone and is heard after its own prior only.
            yield from self._synthesize_group(batch[:1], request, clock, cancel)
            batch = batch[1:]
        yield from self._synthesize_group(batch, request, clock, cancel)

    def _synthesize_group(self, batch, request: _Request, clock, cancel):
        """Prior of ``batch`` in one forward, then each sentence's stream."""
        torch = self._torch
        lengths = [len(s.phoneme_ids) for s in batch]
        ids = torch.zeros(len(batch), self._length(max(lengths)), dtype=torch.long)
        for row, sentence in enumerate(batch):
            ids[row, : lengths[row]] = torch.tensor(sentence.phoneme_ids)
        noise_scale, length_scale, noise_w = request.scales
        sid = None if request.sid is None else request.sid.expand(len(batch))
        with torch.inference_mode():
            prior = self.model.prior(
                ids.to(self.device), torch.tensor(lengths, device=self.device), sid, noise_scale, length_scale, noise_w
            )
            frames = prior.y_mask.sum(dim=(1, 2)).long().tolist()
            durations = prior.durations.cpu().numpy()
        for row, sentence in enumerate(batch):
            if cancel is not None and cancel.is_set():
                return
            own = durations[row, : lengths[row]]
            pause = self.pause_frames(sentence.phoneme_ids, own)
            yield sentence, self._stream(prior, row, frames[row], clock, pause, own)

    def _stream(self, prior, row: int, num_frames: int, clock, pause: int, durations: np.ndarray):
        """Yield ``(audio [N] float32, final, pause_frames, durations)`` for row ``row`` of a prior
        (``engines.sentence_loop``)."""
        torch = self._torch
        F = torch.nn.functional
        z_p = prior.z_p[row : row + 1, :, :num_frames]
        y_mask = prior.y_mask[row : row + 1, :, :num_frames]
        g = None if prior.g is None else prior.g[row : row + 1]

        def run_flow(z_p_window, mask_window):
            frames = z_p_window.shape[-1]
            pad = (0, self._length(frames) - frames)
            with torch.inference_mode():
                if pad[1]:  # zeros under a zero mask: exact
                    z_p_window, mask_window = F.pad(z_p_window, pad), F.pad(mask_window, pad)
                return self.model.flow_reverse(z_p_window, mask_window, g)[..., :frames]

        def run_decoder(z_window) -> np.ndarray:
            with torch.inference_mode():
                if self._padded:
                    frames = z_window.shape[-1]
                    audio = self._decode(F.pad(z_window, (0, self._length(frames) - frames)), g, frames)
                else:
                    audio = self._decode(z_window, g)
            return audio.reshape(-1).float().cpu().numpy()

        with torch.inference_mode():
            z = torch.empty_like(z_p)
        flow = FlowWindows(z_p, y_mask, run_flow, z, self.plan.flow_context, self._cost)

        def ensure(end: int) -> None:
            with torch.inference_mode():  # writes into z, an inference tensor
                flow.ensure(end)

        hop = self.config.hop_length
        for audio, final in stream_chunks(z, hop, self.plan, clock, self._cost, run_decoder, ensure):
            yield audio, final, pause if final else None, durations
