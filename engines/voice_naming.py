"""Piper's voice naming, as Home Assistant and wyoming-piper expect it: ``<lang>_<REGION>-<name>-<quality>``.

A voice file is ``en_US-joe-medium.onnx`` (+ ``.onnx.json``): the language code, the voice's own name and its
quality, joined by ``-``. wyoming-piper advertises and finds a voice by that file stem
(``wyoming_piper.__main__._add_custom_voice``, ``download.find_voice``), its upload API takes a stem of
``[A-Za-z0-9][A-Za-z0-9._-]*`` (``web_server._valid_name``), and Home Assistant shows the NAME part. The name part
is kept to letters, digits and ``_`` so that the stem splits back into its three parts
(``engines.names.short_name``); Piper's own voices follow the same rule (``libritts_r``, ``kathleen``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from engines.errors import VoiceStudioError
from engines.languages import is_language_code

QUALITIES = ("x_low", "low", "medium", "high")
"""Piper's voice qualities (``audio.quality``): x_low and low at 16 kHz, medium and high at 22,050 Hz."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*")


class NamingError(VoiceStudioError, ValueError):
    """A voice name, language or quality Home Assistant would not accept; ``field`` names the one at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True, kw_only=True)
class VoiceNaming:
    """How an exported voice is named: ``language`` (``en_US``), ``name`` (``my_voice``), ``quality``
    (``medium``)."""

    language: str
    name: str
    quality: str

    @property
    def stem(self) -> str:
        """The file stem Home Assistant expects: ``en_US-my_voice-medium``."""
        return f"{self.language}-{self.name}-{self.quality}"

    def checked(self, fields: tuple[str, str, str] = ("--name", "--language", "--quality")) -> VoiceNaming:
        """This naming, each part checked (``fields``: how the name, language and quality are called in errors).

        Raises:
            NamingError: a part that is not valid, naming its field and the rule.
        """
        check_name(self.name, fields[0])
        check_language(self.language, fields[1])
        check_quality(self.quality, fields[2])
        return self


def check_name(name: str, field: str = "--name") -> str:
    """``name`` where it is a valid voice name (letters, digits and ``_``, not starting with ``_``).

    Raises:
        NamingError: it is not, with the rule and a name that would do (:func:`slug`).
    """
    if _NAME.fullmatch(name or ""):
        return name
    hint = slug(name or "")
    suggestion = f" (such as {hint})" if hint else ""
    raise NamingError(
        field,
        f"{name!r} is not a voice name Home Assistant accepts: use letters, digits and _ only{suggestion}",
    )


def check_language(code: str, field: str = "--language") -> str:
    """``code`` where it is a language code of Piper's form ``ll_RR`` (``en_US``, ``de_DE``).

    Raises:
        NamingError: it is not.
    """
    if is_language_code(code or ""):
        return code
    raise NamingError(field, f"{code!r} is not a language code such as en_US or de_DE (ll_RR)")


def check_quality(quality: str, field: str = "--quality") -> str:
    """``quality`` where it is one of :data:`QUALITIES`.

    Raises:
        NamingError: it is not.
    """
    if quality in QUALITIES:
        return quality
    raise NamingError(field, f"{quality!r} is not a quality; use one of {', '.join(QUALITIES)}")


def slug(text: str) -> str:
    """``text`` as a voice name: accents dropped, lower case, every run of other characters one ``_``
    (``"My Voice-2"`` -> ``my_voice_2``); ``""`` where nothing is left."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")


def parse_stem(stem: str) -> VoiceNaming | None:
    """The naming of a file stem that follows the rule (``en_US-joe-medium``), else ``None``."""
    language, _, rest = stem.partition("-")
    name, _, quality = rest.rpartition("-")
    naming = VoiceNaming(language=language, name=name, quality=quality)
    try:
        return naming.checked()
    except NamingError:
        return None


def quality_for_rate(sample_rate: int) -> str:
    """The quality Piper gives a voice at ``sample_rate`` Hz where nothing else says: ``low`` at 16 kHz and
    below, else ``medium`` (Piper's ``x_low``/``low`` voices are 16 kHz, ``medium``/``high`` 22,050 Hz)."""
    return "low" if sample_rate <= 16000 else "medium"
