"""The teacher: a voice on an OpenAI-compatible ``/v1/audio/speech`` server, asked for one line at a time.

Candidates of one line are asked again with the same request: Piper voices (a Voice Studio server among them)
draw new noise for every request (``noise_scale``, ``noise_w``), and most cloning servers sample, so each take
differs; a server that answers the same audio every time gives identical candidates, and the first is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.remote.settings import RemoteSettings

CHECK_TEXT = "Hello."
"""What :meth:`Teacher.check` asks for."""
OUR_SERVER = "voice-studio"
"""``owned_by`` of the models a Voice Studio server lists (``engines.server.model_list``)."""


@dataclass(frozen=True, kw_only=True)
class TeacherChoice:
    """Which server, model and voice speak the lines (OpenAI's ``model`` and ``voice`` fields).

    Attributes:
        url: the server's base URL, with or without ``/v1``.
        model, voice: as the server names them (a Voice Studio server: a voice name, and a speaker or ``default``).
        api_key: sent as ``Authorization: Bearer``; ``None`` sends none. Never written to disk.
    """

    url: str
    model: str
    voice: str
    api_key: str | None = None


class Teacher:
    """Speaks lines with a :class:`TeacherChoice` (``engines.remote.engine.RemoteEngine``).

    Raises (from every method):
        EngineError: unreachable server, timeout, refused key, or the server's own error message.
    """

    def __init__(self, choice: TeacherChoice) -> None:
        from engines.remote.engine import RemoteEngine

        self.choice = choice
        settings = RemoteSettings(
            url=choice.url, api_key=choice.api_key, model=choice.model, voice=choice.voice, response_format="wav"
        )
        self._engine = RemoteEngine(settings)
        self._engine.settings.piper_params = self._is_ours()

    def _is_ours(self) -> bool:
        """Whether the server is a Voice Studio server (it then answers at its voice's own rate, not 24 kHz); a
        server without a model list (many speech servers have only ``/v1/audio/speech``) is taken for another."""
        from engines.base import EngineError

        try:
            return any(m.get("owned_by") == OUR_SERVER for m in self._engine.models())
        except EngineError:  # no list, or an unreachable server: check() says which in its own words
            return False

    def check(self) -> None:
        """Ask for one short line (``CHECK_TEXT``), so that a wrong model or voice is refused, in the server's
        words, before any work (servers take names their lists do not show: aliases, OpenAI's voice names).

        Raises:
            EngineError: the server's error message, or no audio.
        """
        from engines.base import EngineError

        audio, _ = self.speak(CHECK_TEXT)
        if audio.size == 0:
            raise EngineError(f"{self.choice.url}: {self.choice.model} / {self.choice.voice} sent no audio")

    def speak(self, text: str, cancel=None) -> tuple[np.ndarray, int]:
        """One take of ``text``: mono float32 ``[N]`` samples and their rate, Hz (empty when cancelled)."""
        chunks = list(self._engine.synthesize(text, cancel=cancel))
        audio = np.concatenate([c.audio for c in chunks]) if chunks else np.zeros(0, np.float32)
        return audio.astype(np.float32).reshape(-1), self._engine.sample_rate

    def close(self) -> None:
        self._engine.close()
