"""The languages Piper's voices are published in, as their ``.onnx.json`` ``language`` block names them.

Home Assistant and wyoming-piper read a voice's language from that block (``language.code``, e.g. ``en_US``) and
show its names. The table holds the block of every language in Piper's voice catalog (``voices.json`` of
``rhasspy/piper-voices``, as wyoming-piper 2.5.2 ships it): code -> (name_native, name_english, country_english).
A code outside it is still a valid language (``xx_YY``); its block then has the code, family and region only.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engines.voice import VoiceConfig

LANGUAGES: dict[str, tuple[str, str, str]] = {
    "ar_JO": ("العربية", "Arabic", "Jordan"),
    "bg_BG": ("български", "Bulgarian", "Bulgaria"),
    "bn_BD": ("বাংলা", "Bengali", "Bangladesh"),
    "ca_ES": ("Català", "Catalan", "Spain"),
    "cs_CZ": ("Čeština", "Czech", "Czech Republic"),
    "cy_GB": ("Cymraeg", "Welsh", "Great Britain"),
    "da_DK": ("Dansk", "Danish", "Denmark"),
    "de_DE": ("Deutsch", "German", "Germany"),
    "el_GR": ("Ελληνικά", "Greek", "Greece"),
    "en_GB": ("English", "English", "Great Britain"),
    "en_US": ("English", "English", "United States"),
    "es_AR": ("Español", "Spanish", "Argentina"),
    "es_ES": ("Español", "Spanish", "Spain"),
    "es_MX": ("Español", "Spanish", "Mexico"),
    "et_EE": ("eesti", "Estonian", "Estonia"),
    "eu_ES": ("Euskara", "Basque", "Spain"),
    "fa_IR": ("فارسی", "Farsi", "Iran"),
    "fi_FI": ("Suomi", "Finnish", "Finland"),
    "fr_FR": ("Français", "French", "France"),
    "he_IL": ("עִבְרִית\u200e", "Hebrew", "Israel"),
    "hi_IN": ("हिन्दी", "Hindi", "India"),
    "hu_HU": ("Magyar", "Hungarian", "Hungary"),
    "hy_AM": ("հայերեն", "Armenian", "Armenia"),
    "id_ID": ("Bahasa Indonesia", "Indonesian", "Indonesia"),
    "is_IS": ("íslenska", "Icelandic", "Iceland"),
    "it_IT": ("Italiano", "Italian", "Italy"),
    "ja_JA": ("日本語", "Japanese", "Japan"),
    "ka_GE": ("ქართული ენა", "Georgian", "Georgia"),
    "kk_KZ": ("қазақша", "Kazakh", "Kazakhstan"),
    "ko_KR": ("한국어", "Korean", "South Korea"),
    "ku_TR": ("Kurmancî", "Kurmanji Kurdish", "Turkey"),
    "lb_LU": ("Lëtzebuergesch", "Luxembourgish", "Luxembourg"),
    "lv_LV": ("Latviešu", "Latvian", "Latvia"),
    "ml_IN": ("മലയാളം", "Malayalam", "India"),
    "mr_IN": ("मराठी, 𑘦𑘨𑘰𑘙𑘲", "Marathi", "India"),
    "ne_NP": ("नेपाली", "Nepali", "Nepal"),
    "nl_BE": ("Nederlands", "Dutch", "Belgium"),
    "nl_NL": ("Nederlands", "Dutch", "Netherlands"),
    "no_NO": ("Norsk", "Norwegian", "Norway"),
    "pl_PL": ("Polski", "Polish", "Poland"),
    "pt_BR": ("Português", "Portuguese", "Brazil"),
    "pt_PT": ("Português", "Portuguese", "Portugal"),
    "ro_RO": ("Română", "Romanian", "Romania"),
    "ru_RU": ("Русский", "Russian", "Russia"),
    "sk_SK": ("Slovenčina", "Slovak", "Slovakia"),
    "sl_SI": ("Slovenščina", "Slovenian", "Slovenia"),
    "sq_AL": ("shqip", "Albanian", "Albania"),
    "sr_RS": ("srpski", "Serbian", "Serbia"),
    "sv_SE": ("Svenska", "Swedish", "Sweden"),
    "sw_CD": ("Kiswahili", "Swahili", "Democratic Republic of the Congo"),
    "te_IN": ("తెలుగు", "Telugu", "India"),
    "th_TH": ("ไทย", "Thai", "Thailand"),
    "tr_TR": ("Türkçe", "Turkish", "Turkey"),
    "uk_UA": ("украї́нська мо́ва", "Ukrainian", "Ukraine"),
    "ur_PK": ("اردو", "Urdu", "Pakistan"),
    "vi_VN": ("Tiếng Việt", "Vietnamese", "Vietnam"),
    "zh_CN": ("简体中文", "Chinese", "China"),
}
"""Piper's catalog languages: code -> (name_native, name_english, country_english)."""

ESPEAK_LANGUAGES: dict[str, str] = {"es-419": "es_MX", "cmn": "zh_CN", "en": "en_GB", "en-gb-x-rp": "en_GB"}
"""espeak-ng voices whose language code is not ``family_REGION`` of their name (Piper's voices use them so)."""

FAMILY_DEFAULTS: dict[str, str] = {"en": "en_US", "es": "es_ES", "pt": "pt_PT", "nl": "nl_NL"}
"""The code of a family where the catalog has several regions and an espeak voice names none."""

_CODE = re.compile(r"([a-z]{2,3})_([A-Z]{2})")


def is_language_code(code: str) -> bool:
    """Whether ``code`` has Piper's form ``ll_RR`` (a 2-3 letter lower-case family, a 2-letter upper-case
    region)."""
    return _CODE.fullmatch(code) is not None


def language_block(code: str) -> dict[str, Any]:
    """The ``language`` block of ``code`` (``en_US``): code, family, region, and the three names where the
    table has them (a code it lacks gets code, family and region only: :func:`is_known`)."""
    family, _, region = code.partition("_")
    block: dict[str, Any] = {"code": code, "family": family, "region": region}
    if code in LANGUAGES:
        native, english, country = LANGUAGES[code]
        block |= {"name_native": native, "name_english": english, "country_english": country}
    return block


def is_known(code: str) -> bool:
    """Whether the table has the names of ``code``."""
    return code in LANGUAGES


def espeak_language(espeak_voice: str) -> str | None:
    """The language code of an espeak-ng voice (``en-us`` -> ``en_US``, ``de`` -> ``de_DE``, ``es-419`` ->
    ``es_MX``); ``None`` where neither its name nor the table says a region."""
    voice = espeak_voice.strip().lower()
    if voice in ESPEAK_LANGUAGES:
        return ESPEAK_LANGUAGES[voice]
    family, _, rest = voice.partition("-")
    region = rest.split("-")[0].upper()
    if len(region) == 2 and region.isalpha():
        return f"{family}_{region}"
    if family in FAMILY_DEFAULTS:
        return FAMILY_DEFAULTS[family]
    return next((code for code in LANGUAGES if code.partition("_")[0] == family), None)


def voice_language(config: VoiceConfig) -> str:
    """A voice's language as Piper's voice catalog and our export write it: its config's ``language.code``
    (``en_US``), else its espeak voice's code as the export names it (:func:`espeak_language`: ``en-us`` ->
    ``en_US``, ``de`` -> ``de_DE``), else the espeak voice itself (a family with no region known). Wyoming's
    ``describe``, ``voices --json`` and ``/v1/models`` list it so."""
    code = (config.raw.get("language") or {}).get("code")
    if code:
        return str(code)
    return espeak_language(config.espeak_voice) or config.espeak_voice
