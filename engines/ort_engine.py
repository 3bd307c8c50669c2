"""ONNX Runtime engine: any Piper voice, streamed inside each sentence.

The voice's graph is cut (see ``engines.ort_graph``) into the encoder part
(phoneme_ids -> ``z_p``, ``y_mask``, durations), the reverse flow (``z_p`` -> ``z``)
and the decoder (``z`` -> audio). The encoder runs once per sentence; flow and
decoder run on windows of frames chosen by ``engines.streaming.ChunkPlan``, so
the first audio of a long sentence is out after a fraction of its compute.
Voices that cannot be cut at the flow are cut at the decoder only, and voices
that cannot be cut at all run whole, one chunk per sentence.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engines.base import AudioChunk, EngineError, SynthesisOptions
from engines.ort_graph import Splitter, analyze, check_config, load_model
from engines.ort_session import Part, session_options, use_shared_thread_pool
from engines.phonemes import PUNCTUATION, FrontendReport, Phonemizer, sentences
from engines.streaming import ChunkPlan, FrameCost, PlaybackClock, windows
from engines.voice import EOS, PAD, Voice, load_voice

_LOGGER = logging.getLogger(__name__)

GRAPH_INPUTS = ["input", "input_lengths", "scales"]

__all__ = ["OnnxEngine", "Latent", "use_shared_thread_pool"]


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


class OnnxEngine:
    """Streams a Piper ONNX voice through ONNX Runtime.

    Args:
        voice: the voice to speak with.
        threads: ONNX Runtime intra-op threads (``None``: its default, one per core).
        split: how to cut the graph for streaming: ``True`` as finely as the
            graph allows (flow and decoder), ``"decoder"`` at the decoder only,
            ``False`` not at all (one chunk per sentence).
        plan: chunk sizes and context.
        providers: ONNX Runtime execution providers (default: CPU).

    Raises:
        VoiceError: the model is unreadable or its config belongs to another model.
        EngineError: onnxruntime is not installed.
    """

    name = "onnx"

    def __init__(
        self,
        voice: Voice,
        *,
        threads: int | None = None,
        split: bool | str = True,
        plan: ChunkPlan | None = None,
        providers: list[str] | None = None,
    ) -> None:
        try:
            import onnxruntime  # noqa: F401
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise EngineError("The ONNX engine needs onnxruntime: pip install onnxruntime") from exc
        self.voice = voice
        self.config = voice.config
        self.sample_rate = voice.config.sample_rate
        self.plan = plan or ChunkPlan()
        options = session_options(threads)
        self._providers = providers or ["CPUExecutionProvider"]
        model = load_model(voice.model_path)
        self.graph = analyze(model)
        check_config(self.graph, voice.config, voice.model_path)
        self.mode = self._build(model, options, split)
        self.phonemizer = Phonemizer(voice.config)
        self._pause_ids = _pause_ids(voice.config.phoneme_id_map)
        self.last_report = FrontendReport()
        self._cost = FrameCost()

    @classmethod
    def from_path(cls, model_path: Path | str, **kwargs) -> OnnxEngine:
        """Load ``NAME.onnx`` with its ``NAME.onnx.json``."""
        return cls(load_voice(Path(model_path)), **kwargs)

    def _build(self, model, options, split: bool | str) -> str:
        """Create the sessions; returns the mode: ``flow``, ``decoder`` or ``whole``."""
        info = self.graph
        durations = [info.durations] if info.durations else []
        if split and info.z:
            splitter = Splitter(model)
            if info.z_p and info.y_mask and split is True:
                parts = [
                    splitter.extract(GRAPH_INPUTS, [info.z_p, info.y_mask, *durations]),
                    splitter.extract([info.z_p, info.y_mask], [info.z]),
                    splitter.extract([info.z], ["output"]),
                ]
                if all(parts):
                    self._encoder, self._flow, self._decoder = (self._part(p, options) for p in parts)
                    return "flow"
            parts = [splitter.extract(GRAPH_INPUTS, [info.z, *durations]), splitter.extract([info.z], ["output"])]
            if all(parts):
                self._encoder, self._decoder = (self._part(p, options) for p in parts)
                return "decoder"
            _LOGGER.info("%s: graph cannot be split (%s); one chunk per sentence", self.voice.name, info.notes)
        self._whole = Part(model.SerializeToString(), [i.name for i in model.graph.input], options, self._providers)
        return "whole"

    def _part(self, part: tuple[bytes, list[str]], options) -> Part:
        return Part(part[0], part[1], options, self._providers)

    def speakers(self) -> list[str]:
        """Speaker names in id order (empty for one speaker)."""
        return self.config.speakers

    def synthesize(
        self,
        text: str,
        options: SynthesisOptions | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[AudioChunk]:
        """Stream ``text`` as audio chunks, sentence by sentence; see ``engines.base.Engine``.

        Raises:
            ValueError: an unknown speaker.
        """
        options = options or SynthesisOptions()
        feeds = self._request_feeds(options)
        start = time.perf_counter()
        clock, offset, last = PlaybackClock(), 0, start
        silence = np.zeros(round(options.sentence_silence * self.sample_rate), dtype=np.float32)
        self.last_report = FrontendReport()
        for sentence in sentences(self.phonemizer, text, self.last_report):
            if cancel is not None and cancel.is_set():
                return
            if sentence.index > 0 and len(silence):
                now = time.perf_counter()
                yield AudioChunk(
                    silence, self.sample_rate, sentence.index - 1, 0, False, offset, 0.0, now - start, True
                )
                offset += len(silence)
                clock.emitted(len(silence) / self.sample_rate)
            ids = np.asarray([sentence.phoneme_ids], dtype=np.int64)
            pieces = self._sentence_audio(ids, feeds, clock, cancel)
            for index, (audio, final, pause) in enumerate(pieces):
                now = time.perf_counter()
                chunk = AudioChunk(
                    audio=audio,
                    sample_rate=self.sample_rate,
                    sentence_index=sentence.index,
                    chunk_index=index,
                    final=final,
                    start_sample=offset,
                    compute_s=now - last,
                    elapsed_s=now - start,
                    phoneme_ids=sentence.phoneme_ids if index == 0 else [],
                    pause_frames=pause,
                )
                offset += len(audio)
                clock.emitted(chunk.duration_s)
                yield chunk
                last = time.perf_counter()
                if cancel is not None and cancel.is_set():
                    return

    def _request_feeds(self, options: SynthesisOptions) -> dict[str, np.ndarray]:
        config = self.config
        scales = [
            config.noise_scale if options.noise_scale is None else options.noise_scale,
            config.length_scale if options.length_scale is None else options.length_scale,
            config.noise_w if options.noise_w is None else options.noise_w,
        ]
        feeds = {"scales": np.asarray(scales, dtype=np.float32)}
        sid = config.speaker_id(options.speaker)
        if sid is not None:
            feeds["sid"] = np.asarray([sid], dtype=np.int64)
        return feeds

    def _sentence_audio(self, ids, feeds, clock, cancel) -> Iterator[tuple[np.ndarray, bool, int | None]]:
        """Yield ``(audio [N] float32, final, pause_frames)`` for one sentence."""
        feeds = {**feeds, "input": ids, "input_lengths": np.asarray([ids.shape[1]], dtype=np.int64)}
        if self.mode == "whole":
            yield _audio(self._whole.run(feeds)[0]), True, None
            return
        latent = self._encode(feeds)
        pause = self._pause_frames(ids[0], latent.durations) if latent.durations is not None else None
        for audio, final in self.decode(latent, clock=clock):
            yield audio, final, pause if final else None
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
        if not latent.needs_flow:
            yield from self._decode_chunks(latent.frames, latent.speaker, plan, clock, lambda end: None)
            return
        z_p, y_mask, total = latent.frames, latent.mask, latent.frames.shape[2]
        z = np.empty_like(z_p)
        done = 0  # frames [0, done) of z are exact
        cf = plan.flow_context

        def ensure(end: int) -> None:
            nonlocal done
            if end <= done:
                return
            # First window: just what the first chunk needs; later: the whole rest at once.
            lo, hi = max(0, done - cf), (min(total, end + cf) if done == 0 else total)
            t0 = time.perf_counter()
            feeds = {**latent.speaker, self.graph.z_p: z_p[:, :, lo:hi], self.graph.y_mask: y_mask[:, :, lo:hi]}
            out = self._flow.run(feeds)[0]
            self._cost.observe("flow", time.perf_counter() - t0, hi - lo)
            keep = hi if hi == total else hi - cf
            z[:, :, done:keep] = out[:, :, done - lo : keep - lo]
            done = keep

        yield from self._decode_chunks(z, latent.speaker, plan, clock, ensure)

    def decode_whole(self, latent: Latent) -> np.ndarray:
        """Decode a latent in one piece (the reference for chunked decoding): ``[T * hop_length]``."""
        z = latent.frames
        if latent.needs_flow:
            z = self._flow.run({**latent.speaker, self.graph.z_p: latent.frames, self.graph.y_mask: latent.mask})[0]
        return _audio(self._decoder.run({**latent.speaker, self.graph.z: z})[0])

    def _decode_chunks(self, z, speaker, plan: ChunkPlan, clock, ensure) -> Iterator[tuple[np.ndarray, bool]]:
        hop, cd, total = self.config.hop_length, plan.decoder_context, z.shape[2]
        cost = self._cost
        start = 0
        while start < total:
            if start == 0:
                frames = plan.first(total, clock.ahead_s(), cost)
            else:
                frames = plan.following(total - start, clock.ahead_s(), cost)
            end = min(total, start + frames)
            lo, hi = windows(start, end, total, cd)
            ensure(hi)
            t0 = time.perf_counter()
            audio = _audio(self._decoder.run({**speaker, self.graph.z: z[:, :, lo:hi]})[0])
            cost.observe("decoder", time.perf_counter() - t0, hi - lo)
            yield audio[(start - lo) * hop : (end - lo) * hop], end == total
            start = end

    def _pause_frames(self, ids: np.ndarray, frames: np.ndarray) -> int:
        """Frames given to the trailing punctuation, PAD and EOS ids of a sentence."""
        total = 0.0
        for position in range(len(ids) - 1, -1, -1):
            if int(ids[position]) not in self._pause_ids:
                break
            total += float(frames[position])
        return int(total)


def _audio(output: np.ndarray) -> np.ndarray:
    """The decoder's output ``[1, 1, N]`` (or ``[1, N, 1, 1]``) as ``[N]`` float32."""
    return np.ascontiguousarray(output.reshape(-1), dtype=np.float32)


def _pause_ids(id_map) -> frozenset[int]:
    symbols = set(PUNCTUATION) | {PAD, EOS}
    return frozenset(i for symbol, ids in id_map.items() if symbol in symbols for i in ids)
