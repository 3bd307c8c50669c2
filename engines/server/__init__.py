"""The speech server (``voice-studio serve``): the studio's voices behind OpenAI's speech API and Wyoming.

- ``app``: the HTTP application and its routes.
- ``service``: the work behind the routes (voices, engines, admission, counters).
- ``request``: parsing and checking ``POST /v1/audio/speech`` bodies.
- ``encode``: audio body encoders (pcm, wav, flac, mp3, opus, sse), also used by ``say``.
- ``model_list``: ``/v1/models`` as OpenAI lists them.
- ``wyoming_server``, ``wyoming_handler``, ``wyoming_info``, ``wyoming_listener``: the same voices over Wyoming
  (``serve --wyoming``, Home Assistant's protocol), on the same service; ``text_stream``: the complete sentences
  of text streamed in.

Importing this package is cheap; the HTTP framework is imported by ``app``, the ``wyoming`` package by the
``wyoming_*`` modules (but ``wyoming_listener``).
"""
