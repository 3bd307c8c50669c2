"""Word and phoneme timestamps from the durations the encoder already predicts.

A Piper voice's duration predictor gives every ``phoneme_id`` a whole number of frames (VITS's ``w_ceil``,
``length_scale`` applied), and the decoder turns each frame into ``hop_length`` samples, so where each phoneme is
heard is known before its audio is decoded. ``durations`` turns those frames into samples per phoneme; ``words``
groups a sentence's phonemes into the words of the text (espeak-ng separates words with a space) and maps the
words said back to the words written (``$49.95`` is one written word said as seven); ``events`` holds what the
engines hand out (:class:`~engines.timing.events.SentenceTiming` on a sentence's first ``AudioChunk``);
``timeline`` gathers a request's timings and ``formats`` writes them as SRT, WebVTT or JSON.
"""
