"""The remote engine: speech from any OpenAI-compatible ``/v1/audio/speech`` server.

- ``engine``: :class:`~engines.remote.engine.RemoteEngine` (key ``"remote"``) and
  :class:`~engines.remote.engine.RemoteSettings`.
- ``decode``: incremental decoders for PCM, WAV and SSE response bodies.
- ``body_format``: which format a response body is in, from its bytes.
"""
