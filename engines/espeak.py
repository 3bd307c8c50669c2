"""espeak-ng as piper-tts bundles it: its data folder checked before first use, and which voices it has.

piper-tts phonemizes with its own build of espeak-ng (``piper.espeakbridge``), which reads the data folder inside
the package (``piper.phonemize_espeak.ESPEAK_DATA_DIR``). Two things go wrong there that espeak-ng reports badly:

- The data folder is missing or partly copied (a stripped install, an interrupted copy). Without ``phontab``
  espeak-ng prints "Error processing file '…/phontab'" (with no folder at all: a path compiled into the wheel, on
  its build machine) and ends the whole process with exit status 1; with a file cut short it reads garbage
  ("Bad rules data"), speaks wrongly or crashes. :func:`check_data` compares the folder with what the piper-tts
  install recorded (the ``RECORD`` of its dist-info: each file and its size) before espeak-ng is started, and
  says in one line how to repair the install.
- A voice config names a voice espeak-ng does not have (``en_US``, a locale, for ``en-us``): piper-tts raises
  ``RuntimeError: Failed to set voice`` at the first sentence. :func:`check_config` asks espeak-ng whether it
  has the voice (once per name per process, about a millisecond) and names the config's field.

espeak-ng keeps one voice for the whole process, so every question goes through piper-tts's own espeak-ng
phonemizer under piper-tts's own lock (``piper.voice._ESPEAK_PHONEMIZER`` and ``_ESPEAK_PHONEMIZER_LOCK``): a
question never switches the voice under a sentence another thread is phonemizing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engines.base import EngineError, VoiceError
from engines.errors import VoiceStudioError
from engines.imports import importing

if TYPE_CHECKING:
    from engines.voice import VoiceConfig

PACKAGE = "piper-tts"
"""The distribution whose espeak-ng data this is (its name on PyPI)."""
STARTUP_FILES = ("phontab", "phonindex", "phondata", "intonations")
"""The files espeak-ng reads when it starts (``LoadPhData`` in espeak-ng's ``synthdata.c``); checked, with the
``lang`` folder of voices, where the install left no ``RECORD`` to compare with."""
NAMED = 3
"""Damaged files a message names (then "and N more")."""

_LOCK = threading.Lock()
_data: dict[Path, list[str]] = {}
"""Data folder -> what is wrong with it (empty: nothing), found once per process."""
_voices: dict[str, bool] = {}
"""espeak-ng voice name -> whether espeak-ng has it, asked once per process."""


class EspeakDataError(EngineError):
    """piper-tts's espeak-ng data folder is missing or damaged; the message names it and how to repair the install."""


class EspeakVoiceError(VoiceStudioError, ValueError):
    """A name espeak-ng has no voice by, given as an option (a config's field raises ``VoiceError`` instead)."""


def data_dir() -> Path:
    """The espeak-ng data folder piper-tts phonemizes with (``piper.phonemize_espeak.ESPEAK_DATA_DIR``)."""
    with importing("piper.phonemize_espeak"):
        from piper.phonemize_espeak import ESPEAK_DATA_DIR

    return Path(ESPEAK_DATA_DIR)


def check_data() -> Path:
    """piper-tts's espeak-ng data folder, checked (once per process) before espeak-ng may read it; returns it.

    Raises:
        EspeakDataError: the folder is missing, or a file of it is missing or of another size than the install
            recorded (at most :data:`NAMED` named), with the command that repairs the install.
    """
    folder = data_dir()
    with _LOCK:
        if folder not in _data:
            _data[folder] = _problems(folder)
    problems = _data[folder]
    if problems:
        from engines.extras import repair_line

        more = f" and {len(problems) - NAMED} more" if len(problems) > NAMED else ""
        raise EspeakDataError(
            f"{PACKAGE}'s espeak-ng data is missing or damaged ({folder}: {'; '.join(problems[:NAMED])}{more}): "
            f"repair the install: {repair_line(PACKAGE)}"
        )
    return folder


def _problems(folder: Path) -> list[str]:
    """What is wrong with data ``folder``: ``the folder is missing``, ``NAME is missing``, ``NAME has N of M
    bytes`` (``NAME is empty`` where no size was recorded); empty when nothing is."""
    if not folder.is_dir():
        return ["the folder is missing"]
    recorded = _recorded_sizes(folder)
    if recorded is None and not (folder / "lang").is_dir():
        return ["lang is missing"]
    expected: dict[str, int | None] = dict(recorded) if recorded is not None else dict.fromkeys(STARTUP_FILES)
    problems = []
    for name, size in expected.items():
        try:
            found = (folder / name).stat().st_size
        except OSError:
            problems.append(f"{name} is missing")
            continue
        if size is None and found == 0:
            problems.append(f"{name} is empty")
        elif size is not None and found != size:
            problems.append(f"{name} has {found:,} of {size:,} bytes")
    return problems


def _recorded_sizes(folder: Path) -> dict[str, int] | None:
    """Each data file's path inside ``folder`` -> its size in bytes, as the piper-tts install recorded it
    (its ``RECORD``); ``None`` when no install of piper-tts has ``folder`` as its data folder."""
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    prefix = ("piper", folder.name)
    if Path(str(dist.locate_file("/".join(prefix)))).resolve() != folder.resolve():
        return None
    return {
        "/".join(file.parts[len(prefix) :]): file.size
        for file in dist.files or []
        if file.parts[: len(prefix)] == prefix and file.size is not None
    }


@contextmanager
def _espeak() -> Iterator[Any]:
    """piper-tts's one espeak-ng phonemizer (``piper.phonemize_espeak.EspeakPhonemizer``), made on first use
    from the checked data folder, held under piper-tts's lock while the ``with`` body runs.

    Raises:
        EspeakDataError: from :func:`check_data`.
    """
    folder = check_data()
    with importing("piper.voice", "piper.phonemize_espeak"):
        import piper.voice
        from piper.phonemize_espeak import EspeakPhonemizer

    with piper.voice._ESPEAK_PHONEMIZER_LOCK:
        if piper.voice._ESPEAK_PHONEMIZER is None:
            piper.voice._ESPEAK_PHONEMIZER = EspeakPhonemizer(folder)
        yield piper.voice._ESPEAK_PHONEMIZER


def has_voice(name: str) -> bool:
    """Whether espeak-ng has a voice called ``name`` (``en-us``, ``de``, ``gmw/en-US``, ``en-us+f3``), as piper-tts
    selects it (``espeakbridge.set_voice``); asked once per name per process.

    Raises:
        EspeakDataError: from :func:`check_data`.
    """
    if name not in _voices:
        with _espeak():
            with importing("piper.espeakbridge"):
                from piper.espeakbridge import set_voice

            try:
                set_voice(name)
                _voices[name] = True
            except RuntimeError:  # piper-tts's words for espeak-ng's EE_NOT_FOUND: "Failed to set voice: NAME"
                _voices[name] = False
    return _voices[name]


def unknown_voice(name: str) -> str:
    """Why espeak-ng cannot speak ``name``, with the name it likely means: ``espeak-ng has no voice 'en_US' (did
    you mean 'en-us'?)``; empty when it has the voice.

    Raises:
        EspeakDataError: from :func:`check_data`.
    """
    if has_voice(name):
        return ""
    likely = [n for n in dict.fromkeys([name.replace("_", "-").lower(), name.split("_")[0].lower()]) if n]
    guess = next((n for n in likely if has_voice(n)), None)
    hint = f"did you mean '{guess}'?" if guess else "espeak-ng names its voices like 'en-us', 'de', 'fr-fr'"
    return f"espeak-ng has no voice '{name}' ({hint})"


def check_config(config: VoiceConfig) -> None:
    """A voice config piper-tts can phonemize with: an espeak voice espeak-ng has (other phoneme types do not use
    espeak-ng, and pass).

    Raises:
        VoiceError: naming the config and its ``espeak.voice`` field. EspeakDataError: from :func:`check_data`.
    """
    if config.phoneme_type != "espeak":
        return
    reason = unknown_voice(config.espeak_voice)
    if reason:
        raise VoiceError(config.path, reason, "espeak.voice")


def check_name(name: str, where: str) -> None:
    """An espeak-ng voice name given as ``where`` (an option such as ``--espeak-voice``) that espeak-ng has.

    Raises:
        EspeakVoiceError: ``WHERE: espeak-ng has no voice 'NAME' (…)``. EspeakDataError: from :func:`check_data`.
    """
    reason = unknown_voice(name)
    if reason:
        raise EspeakVoiceError(f"{where}: {reason}")


def phonemize(voice: str, text: str) -> list[list[str]]:
    """``text``'s phonemes by sentence with espeak-ng voice ``voice``, exactly as piper-tts's trainer makes them
    (``EspeakPhonemizer.phonemize``, no vowel clusters), on the process's one espeak-ng.

    Raises:
        EspeakDataError: from :func:`check_data`. RuntimeError: espeak-ng has no such voice (check it first with
            :func:`check_config`).
    """
    with _espeak() as espeak:
        return espeak.phonemize(voice, text)
