"""ONNX Runtime engine: any Piper voice, streamed inside each sentence.

The voice's graph is cut (see ``engines.onnx.graph``) into the encoder part
(phoneme_ids -> ``z_p``, ``y_mask``, durations), the reverse flow (``z_p`` -> ``z``)
and the decoder (``z`` -> audio). The encoder runs once per sentence; flow and
decoder run on windows of frames chosen by ``engines.stream_plan.ChunkPlan``, so
the first audio of a long sentence is out after a fraction of its compute.
Voices that cannot be cut at the flow are cut at the decoder only, and voices
that cannot be cut at all run whole, one chunk per sentence.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engines.base import EngineError, SynthesisOptions
from engines.imports import importing
from engines.onnx.graph import RANDOM_OPS, check_config, seed_random_ops
from engines.onnx.prepared import prepare
from engines.onnx.session import Part, session_options, use_shared_thread_pool
from engines.sentence_loop import LocalEngine, Pieces
from engines.stream_plan import ChunkPlan, FlowWindows, PlaybackClock, stream_chunks
from engines.voice import Voice, load_voice

_LOGGER = logging.getLogger(__name__)

__all__ = ["OnnxEngine", "Latent", "seed_random_ops", "use_shared_thread_pool"]


@dataclass
class Latent:
    """One sentence after the encoder part.

    Attributes:
        frames: ``z_p`` ``[1, C, T]`` (the prior sample, before the flow) when
            ``needs_flow``, else ``z`` ``[1, C, T]`` (the decoder input); float32.
        mask: ``y_mask`` ``[1, 1, T]`` (with ``needs_flow``), else ``None``.
        durations: frames per phoneme id ``[T_ph]`` (``w_ceil``), if the graph exposes them.
        needs_flow: whether ``frames`` still has to go through the reverse flow.
        speaker: ``{"sid": [1] int64}`` for multi-speaker voices, else empty.
    """

    frames: np.ndarray
    mask: np.ndarray | None
    durations: np.ndarray | None
    needs_flow: bool
    speaker: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def num_frames(self) -> int:
        """T, the sentence length in frames."""
        return self.frames.shape[2]


class OnnxEngine(LocalEngine):
    """Streams a Piper ONNX voice through ONNX Runtime.

    Args:
        voice: the voice to speak with.
        threads: ONNX Runtime intra-op threads (``None``: its default, one per core).
        split: how to cut the graph for streaming: ``True`` as finely as the
            graph allows (flow and decoder), ``"decoder"`` at the decoder only,
            ``False`` not at all (one chunk per sentence).
        plan: chunk sizes and context.
        providers: ONNX Runtime execution providers (default: CPU).
        seed: seeds the graph's own noise (the ``RandomNormalLike`` nodes of the duration predictor and the
            prior): a new engine with the same seed draws the same noise, request after request (each run
            advances the generator, so one engine's second request differs from its first). ``None``: ONNX
            Runtime's random seed.

    Raises:
        VoiceError: the model is unreadable or its config belongs to another model.
        EngineError: onnxruntime is not installed.
    """

    name = "onnx"
    _encoder: Part
    _flow: Part
    _decoder: Part
    _whole: Part
    """The sessions over the prepared parts (``engines.onnx.prepared``): those of the engine's :attr:`mode`."""

    def __init__(
        self,
        voice: Voice,
        *,
        threads: int | None = None,
        split: bool | str = True,
        plan: ChunkPlan | None = None,
        providers: list[str] | None = None,
        seed: int | None = None,
    ) -> None:
        try:
            with importing("onnxruntime"):
                import onnxruntime  # noqa: F401
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise EngineError("The ONNX engine needs onnxruntime: pip install onnxruntime") from exc
        super().__init__(voice, plan)
        options = session_options(threads)
        self._options = options
        self._providers = providers or ["CPUExecutionProvider"]
        prepared = prepare(voice.model_path, seed=seed, split=split)
        self.graph = prepared.info
        check_config(self.graph, voice.config, voice.model_path)
        self.mode = prepared.mode
        sessions = [self._part(part, options) for part in prepared.parts]
        names = {"flow": ("_encoder", "_flow", "_decoder"), "decoder": ("_encoder", "_decoder"), "whole": ("_whole",)}
        for name, session in zip(names[self.mode], sessions, strict=True):
            setattr(self, name, session)

    @classmethod
    def from_path(cls, model_path: Path | str, **kwargs) -> OnnxEngine:
        """Load ``NAME.onnx`` with its ``NAME.onnx.json``."""
        return cls(load_voice(Path(model_path)), **kwargs)

    def _part(self, part: tuple[bytes, list[str]], options) -> Part:
        """A session over ``part`` (serialized model, input names); one with random nodes keeps its model, to be
        seeded again by :meth:`reseeded`."""
        random = any(op.encode() in part[0] for op in RANDOM_OPS)  # op types are plain bytes in the protobuf
        return Part(part[0], part[1], options, self._providers, keep_model=random)

    def reseeded(self, seed: int) -> OnnxEngine:
        """A new engine whose noise starts at ``seed``: the audio of ``OnnxEngine(voice, seed=seed)``, made in a
        fraction of its time.

        Only the parts with random nodes (the encoder part: the duration predictor's and the prior's noise) get
        new sessions; the flow and decoder sessions, most of the weights, are this engine's (ONNX Runtime
        sessions run from any number of threads). The new engine has its own text front end and cost model, and
        this engine is left as it was.
        """
        clone = object.__new__(type(self))
        LocalEngine.__init__(clone, self.voice, self.plan)
        clone.graph, clone.mode = self.graph, self.mode
        clone._options, clone._providers = self._options, self._providers
        for name in ("_encoder", "_flow", "_decoder", "_whole"):
            part = getattr(self, name, None)
            if part is not None and part.model is not None:
                part = _seeded(part, seed, self._options, self._providers)
            if part is not None:
                setattr(clone, name, part)
        return clone

    def _prepare(self, options: SynthesisOptions) -> dict[str, np.ndarray]:
        return self._request_feeds(options)

    def _synthesize_batch(self, batch, feeds, clock, cancel):
        for sentence in batch:
            ids = np.asarray([sentence.phoneme_ids], dtype=np.int64)
            yield sentence, self._sentence_audio(ids, feeds, clock, cancel)

    def _request_feeds(self, options: SynthesisOptions) -> dict[str, np.ndarray]:
        feeds = {"scales": np.asarray(self.scales(options), dtype=np.float32)}
        sid = self.config.speaker_id(options.speaker)
        if sid is not None:
            feeds["sid"] = np.asarray([sid], dtype=np.int64)
        return feeds

    def _sentence_audio(self, ids, feeds, clock, cancel) -> Pieces:
        """Yield ``(audio [N] float32, final, pause_frames, durations)`` for one sentence (``engines.sentence_loop``;
        a graph that runs whole tells no durations)."""
        feeds = {**feeds, "input": ids, "input_lengths": np.asarray([ids.shape[1]], dtype=np.int64)}
        if self.mode == "whole":
            yield _audio(self._whole.run(feeds)[0]), True, None, None
            return
        latent = self._encode(feeds)
        pause = self.pause_frames(ids[0], latent.durations) if latent.durations is not None else None
        for audio, final in self.decode(latent, clock=clock):
            yield audio, final, pause if final else None, latent.durations
            if cancel is not None and cancel.is_set():
                return

    def encode(self, phoneme_ids: list[int], options: SynthesisOptions | None = None) -> Latent:
        """Run the encoder part on one sentence's ``phoneme_ids``.

        Raises:
            EngineError: the voice runs whole (its graph could not be split).
        """
        if self.mode == "whole":
            raise EngineError(f"{self.voice.name}: the graph is not split, there is no latent to decode")
        feeds = self._request_feeds(options or SynthesisOptions())
        ids = np.asarray([phoneme_ids], dtype=np.int64)
        return self._encode({**feeds, "input": ids, "input_lengths": np.asarray([ids.shape[1]], dtype=np.int64)})

    def _encode(self, feeds: dict[str, np.ndarray]) -> Latent:
        outputs = self._encoder.run(feeds)
        speaker = {"sid": feeds["sid"]} if "sid" in feeds else {}
        durations = outputs[-1].reshape(-1) if self.graph.durations else None
        if self.mode == "flow":
            return Latent(outputs[0], outputs[1], durations, True, speaker)
        return Latent(outputs[0], None, durations, False, speaker)

    def decode(
        self, latent: Latent, plan: ChunkPlan | None = None, clock: PlaybackClock | None = None
    ) -> Iterator[tuple[np.ndarray, bool]]:
        """Decode a latent in chunks: yields ``(audio [N] float32, final)``.

        ``plan`` overrides the engine's chunk plan; ``clock`` tells how much
        audio a listener has buffered (default: none, so chunks follow the plan's
        sizes for a cold start). The chunks joined are the whole sentence.
        """
        plan, clock = plan or self.plan, clock or PlaybackClock()
        speaker, z_name = latent.speaker, _cut_at(self.graph.z)

        def run_decoder(z: np.ndarray) -> np.ndarray:
            return _audio(self._decoder.run({**speaker, z_name: z})[0])

        if not latent.needs_flow:
            yield from stream_chunks(latent.frames, self.config.hop_length, plan, clock, self._cost, run_decoder)
            return

        z_p_name, mask_name = _cut_at(self.graph.z_p), _cut_at(self.graph.y_mask)

        def run_flow(z_p: np.ndarray, y_mask: np.ndarray) -> np.ndarray:
            return self._flow.run({**speaker, z_p_name: z_p, mask_name: y_mask})[0]

        flow = FlowWindows(
            latent.frames, latent.mask, run_flow, np.empty_like(latent.frames), plan.flow_context, self._cost
        )
        yield from stream_chunks(flow.z, self.config.hop_length, plan, clock, self._cost, run_decoder, flow.ensure)

    def decode_whole(self, latent: Latent) -> np.ndarray:
        """Decode a latent in one piece (the reference for chunked decoding): ``[T * hop_length]``."""
        z = latent.frames
        if latent.needs_flow:
            assert latent.mask is not None  # a latent that needs the flow carries its y_mask
            feeds = {_cut_at(self.graph.z_p): latent.frames, _cut_at(self.graph.y_mask): latent.mask}
            z = self._flow.run({**latent.speaker, **feeds})[0]
        return _audio(self._decoder.run({**latent.speaker, _cut_at(self.graph.z): z})[0])


def _seeded(part: Part, seed: int, options, providers: list[str]) -> Part:
    """A new session over ``part``'s kept model with its random nodes seeded from ``seed``."""
    with importing("onnx"):
        import onnx

    assert part.model is not None  # kept by OnnxEngine._part for parts with random nodes
    model = onnx.ModelProto.FromString(part.model)
    seed_random_ops(model, seed)
    return Part(model.SerializeToString(), part.inputs, options, providers, keep_model=True)


def _cut_at(tensor: str | None) -> str:
    """The name of a tensor the graph was split at (set in every mode that decodes a latent)."""
    assert tensor is not None, "the graph was not split at this tensor"
    return tensor


def _audio(output: np.ndarray) -> np.ndarray:
    """The decoder's output ``[1, 1, N]`` (or ``[1, N, 1, 1]``) as ``[N]`` float32."""
    return np.ascontiguousarray(output.reshape(-1), dtype=np.float32)
