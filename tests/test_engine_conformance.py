"""The engine conformance suite (``tests/engine_conformance.py``) run by every engine on the voice joe.

A new engine joins with one class here that provides the ``engine`` fixture.
"""

from __future__ import annotations

import pytest
from engine_conformance import EngineConformance


class TestOnnxEngine(EngineConformance):
    """``engines.onnx.engine.OnnxEngine``, the session's engine from ``conftest``."""

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, engine):
        return engine


class TestTorchEngine(EngineConformance):
    """``engines.torch.engine.TorchEngine`` on the CPU."""

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, joe):
        pytest.importorskip("torch")
        from engines.torch.engine import TorchEngine

        return TorchEngine(joe, device="cpu")


class TestRemoteEngine(EngineConformance):
    """``engines.remote.engine.RemoteEngine`` against our own speech server on 127.0.0.1, sending Piper's
    settings (as the studio does once it has seen a Voice Studio server), so the voice's own rate comes back."""

    numbers_sentences = False

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, speech_server):
        from engines.remote.engine import RemoteEngine
        from engines.remote.settings import RemoteSettings

        settings = RemoteSettings(
            url=speech_server.url, model="en_US-joe-medium", voice="default", response_format="pcm", piper_params=True
        )
        engine = RemoteEngine(settings)
        yield engine
        engine.close()

    @pytest.fixture(scope="class")
    @classmethod
    def served(cls, speech_server):
        return lambda: speech_server.health()["requests"]
