"""The remote engine: speech from any OpenAI-compatible ``/v1/audio/speech`` server.

- ``engine``: :class:`~engines.remote.engine.RemoteEngine` (key ``"remote"``), the client.
- ``settings``: :class:`~engines.remote.settings.RemoteSettings` (what to ask, and where) and the formats.
- ``decode``: incremental decoders for PCM, WAV and compressed response bodies.
- ``sse``: server-sent events carrying those bodies as base64 deltas.
- ``body_format``: which format a response body is in, from its bytes (``frames``: MPEG audio and ADTS frame chains).
"""
