"""A Piper ONNX voice as a sherpa-onnx bundle: the graph with the metadata sherpa-onnx reads, ``tokens.txt`` and
the espeak-ng data, in one folder that sherpa-onnx (its command line, its Python API, its Android TTS engine) loads
as it is.

The folder holds:

- ``NAME.onnx``: the voice's graph as our export wrote it, byte for byte the same ``graph``, with
  ``metadata_props`` added (:func:`sherpa_metadata`); other metadata the file had stays;
- ``NAME.onnx.json``: the Piper config, for tools that phonemize outside sherpa-onnx (and for Piper itself);
- ``tokens.txt``: ``symbol id`` per line from the voice's ``phoneme_id_map`` (:func:`sherpa_tokens`);
- ``espeak-ng-data/``: piper-tts's espeak-ng data (about 20 MB), the data our engine phonemizes with. sherpa-onnx
  1.x phonemizes with it on the device (``--vits-data-dir``; its Android TTS engine copies it out of the APK's
  assets), and sherpa-onnx 2.x, which dropped espeak-ng (k2-fsa/sherpa-onnx#3731), takes phonemes from an
  external phonemizer (``piper_phonemize``) that reads the same folder. A phone has no espeak-ng data of its own,
  so a pointer to ours would leave the bundle mute there: it is copied.

What sherpa-onnx reads is from ``sherpa-onnx/csrc/offline-tts-vits-model.cc`` (``Init``: ``sample_rate``,
``n_speakers``, ``language`` and ``comment`` required; ``comment`` containing ``piper`` selects Piper's inputs
``input``/``input_lengths``/``scales``/``sid`` and Piper's id framing ``^ _ p1 _ p2 _ ... $``; ``voice`` is the
espeak-ng voice) and ``piper-phonemize-lexicon.cc`` (``tokens.txt``: one code point per symbol, a line with one
field is the space). ``model_type`` and ``has_espeak`` are what sherpa-onnx's own Piper conversion
(``scripts/piper/add_meta_data.py``) writes besides. ``add_blank`` and ``punctuation`` are left out: sherpa-onnx
reads them only for voices phonemized by its lexicon front end, and their defaults (no blanks) are right for Piper.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from engines.errors import VoiceStudioError
from engines.files import atomic_path, temp_beside, write_text
from engines.imports import importing
from engines.voice import BOS, EOS, PAD, VoiceConfig

TOKENS = "tokens.txt"
"""The token file's name in a bundle (sherpa-onnx's examples and its Android app expect it)."""
ESPEAK_DATA = "espeak-ng-data"
"""The espeak-ng data folder's name in a bundle (``--vits-data-dir`` points at it)."""


class SherpaBundleError(VoiceStudioError, ValueError):
    """A bundle that cannot be written: the folder is a file, missing or not writable, or the voice has what
    sherpa-onnx cannot read. The message names the folder or the voice's field."""


@dataclass(frozen=True, kw_only=True)
class SherpaBundle:
    """The files of a written bundle.

    Attributes:
        folder: the bundle's folder.
        model: ``folder/NAME.onnx``, with sherpa-onnx's metadata.
        config: ``folder/NAME.onnx.json``, the Piper config.
        tokens: ``folder/tokens.txt``.
        espeak_data: ``folder/espeak-ng-data``.
        options: the sherpa-onnx options the voice's ``inference`` settings need (:func:`sherpa_options`); empty
            where sherpa-onnx's defaults are the voice's.
    """

    folder: Path
    model: Path
    config: Path
    tokens: Path
    espeak_data: Path
    options: str = ""

    def options_note(self) -> str:
        """``sherpa-onnx does not read the voice's inference settings: give it --vits-noise-scale=0.333`` where
        :attr:`options` holds any, else ``""``."""
        if not self.options:
            return ""
        return f"sherpa-onnx does not read the voice's inference settings: give it {self.options}"


SHERPA_DEFAULTS = (
    ("noise_scale", "--vits-noise-scale", 0.667),
    ("noise_w", "--vits-noise-scale-w", 0.8),
    ("length_scale", "--vits-length-scale", 1.0),
)
"""The voice's ``inference`` settings sherpa-onnx takes from its own options instead (``VoiceConfig`` attribute,
sherpa-onnx's option, its default: ``sherpa-onnx/csrc/offline-tts-vits-model-config.h``)."""


def sherpa_options(config: VoiceConfig) -> str:
    """The sherpa-onnx options that speak ``config``'s voice as its ``inference`` settings say
    (``--vits-noise-scale=0.333`` for a fine-tune's), space-separated; ``""`` where every one is sherpa-onnx's
    default. sherpa-onnx reads none of them from the model or its ``.onnx.json``: a bundle that did not say them
    would be spoken with other settings than every other runtime speaks the voice with."""
    said = [
        f"{option}={getattr(config, name):g}"
        for name, option, default in SHERPA_DEFAULTS
        if not math.isclose(getattr(config, name), default)
    ]
    return " ".join(said)


def check_folder(folder: Path | str) -> Path:
    """Check, before any work, that the bundle can be written in ``folder``: not a file, its parent a folder, and
    a file can be created in it (or, where it does not exist yet, in its parent, where it will be made): one is
    made and removed. Nothing else is written.

    Raises:
        SherpaBundleError: naming ``folder`` and what is wrong.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise SherpaBundleError(f"{folder}: is a file; give a folder for the sherpa-onnx bundle")
    if not folder.parent.is_dir():
        raise SherpaBundleError(f"{folder}: folder {folder.parent} does not exist")
    probe = folder if folder.is_dir() else folder.parent
    try:
        temp_beside(probe / TOKENS).unlink()
    except OSError as exc:
        raise _unwritable(folder, exc) from None
    return folder


def _unwritable(folder: Path, exc: OSError) -> SherpaBundleError:
    """The error for a bundle folder the OS refused (``exc``), naming the folder and the OS's reason."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    return SherpaBundleError(f"{folder}: cannot write the sherpa-onnx bundle there: {reason}")


def check_fit(config: VoiceConfig) -> None:
    """The voice is one sherpa-onnx can speak: espeak-ng phonemes (its Piper front end phonemizes with espeak-ng),
    one id per phoneme, no merged vowel clusters (sherpa-onnx maps each code point on its own), and Piper's
    ``_``, ``^`` and ``$`` in the map.

    Raises:
        SherpaBundleError: naming the config and the field at fault.
    """
    where = config.path
    if config.phoneme_type != "espeak":
        raise SherpaBundleError(
            f"{where}: phoneme_type is {config.phoneme_type!r}; sherpa-onnx speaks Piper voices with espeak-ng phonemes"
        )
    if config.raw.get("vowel_clusters"):
        raise SherpaBundleError(
            f"{where}: vowel_clusters merges phonemes, which sherpa-onnx cannot (it maps each code point on its own)"
        )
    several = sorted(symbol for symbol, ids in config.phoneme_id_map.items() if len(ids) != 1)
    if several:
        raise SherpaBundleError(
            f"{where}: phoneme_id_map gives {several[0]!r} {len(config.phoneme_id_map[several[0]])} ids; "
            "sherpa-onnx reads one id per phoneme"
        )
    missing = [symbol for symbol in (PAD, BOS, EOS) if symbol not in config.phoneme_id_map]
    if missing:
        raise SherpaBundleError(f"{where}: phoneme_id_map has no {missing[0]!r}, which sherpa-onnx frames ids with")


def sherpa_tokens(config: VoiceConfig) -> str:
    """``tokens.txt``'s text: ``symbol id`` per line, by id.

    sherpa-onnx reads one code point per symbol and ends the process on any other (``ReadTokens``), so symbols of
    several code points (``aɪ`` in Piper's default map, never produced without ``vowel_clusters``) and white space
    other than the space (a newline would break the line) are left out; the space's line is ``  ID`` (sherpa-onnx
    reads a line with one field as the space). Call :func:`check_fit` first: a multi-id entry keeps its first id.
    """
    rows = sorted(
        (ids[0], symbol)
        for symbol, ids in config.phoneme_id_map.items()
        if len(symbol) == 1 and (symbol == " " or not symbol.isspace())
    )
    return "".join(f"{symbol} {token_id}\n" for token_id, symbol in rows)


def sherpa_metadata(config: VoiceConfig, espeak_voice: str | None = None) -> dict[str, str]:
    """The ``metadata_props`` sherpa-onnx reads for a Piper voice (see the module's docstring), as strings.

    ``language`` is the config's ``language.name_english`` (sherpa-onnx's conversion writes the English name,
    ``English``), else its ``language.code``, else the espeak-ng voice; ``voice`` is ``espeak_voice`` where given,
    else the config's ``espeak.voice``.
    """
    block = config.raw.get("language")
    language: dict = block if isinstance(block, dict) else {}
    voice = espeak_voice or config.espeak_voice
    values: dict[str, object] = {
        "model_type": "vits",
        "comment": "piper",
        "language": language.get("name_english") or language.get("code") or voice,
        "voice": voice,
        "has_espeak": 1,
        "n_speakers": config.num_speakers,
        "sample_rate": config.sample_rate,
    }
    return {key: str(value) for key, value in values.items()}


def write_model(source: Path, target: Path, metadata: dict[str, str]) -> Path:
    """Write ``source``'s ONNX model at ``target`` (atomically) with ``metadata`` set in its ``metadata_props``
    (a key it had is replaced, the others stay); the graph itself is not touched. ``target`` may be ``source``.

    Raises:
        OSError: ``source`` unreadable or ``target`` not writable.
    """
    with importing("onnx"):
        import onnx

    model = onnx.load(str(source))
    kept = [(p.key, p.value) for p in model.metadata_props if p.key not in metadata]
    del model.metadata_props[:]
    for key, value in [*kept, *metadata.items()]:
        model.metadata_props.add(key=key, value=value)
    with atomic_path(target) as tmp:
        onnx.save(model, str(tmp))
    return target


def copy_espeak_data(folder: Path) -> Path:
    """Copy piper-tts's espeak-ng data (``engines.espeak.check_data``) to ``folder/espeak-ng-data``, replacing one
    there only once the copy is whole.

    Raises:
        EspeakDataError: piper-tts's data is missing or damaged. OSError: the copy failed (nothing replaced).
    """
    from engines.espeak import check_data

    source = check_data()
    target = folder / ESPEAK_DATA
    fresh = folder / f".{ESPEAK_DATA}.{secrets.token_hex(4)}.part"
    try:
        shutil.copytree(source, fresh)
        old = target.with_name(fresh.name + ".old")
        if target.exists():
            target.rename(old)
        fresh.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return target


def write_bundle(
    voice_model: Path | str,
    folder: Path | str,
    config: VoiceConfig | None = None,
    espeak_voice: str | None = None,
    name: str | None = None,
) -> SherpaBundle:
    """Write a sherpa-onnx bundle of the Piper voice ``voice_model`` (an ``.onnx`` with its ``.onnx.json``) in
    ``folder`` (see the module's docstring); ``config`` replaces the voice's own config, ``espeak_voice`` its
    espeak-ng voice, ``name`` the model's file name (default: the voice's).

    Raises:
        SherpaBundleError: the folder cannot be written, or the voice has what sherpa-onnx cannot read.
        VoiceError: the voice or its config is unreadable. EspeakDataError: piper-tts's espeak-ng data is damaged.
    """
    from engines.voice import load_voice

    voice_model = Path(voice_model)
    config = config or load_voice(voice_model).config
    check_fit(config)
    folder = check_folder(folder)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise _unwritable(folder, exc) from None
    model = folder / (name or voice_model.name)
    document = config.piper_document()
    if espeak_voice:
        document["espeak"] = {**document["espeak"], "voice": espeak_voice}
    write_model(voice_model, model, sherpa_metadata(config, espeak_voice))
    json_path = write_text(model.with_name(model.name + ".json"), json.dumps(document, ensure_ascii=False, indent=2))
    tokens = write_text(folder / TOKENS, sherpa_tokens(config))
    espeak_data = copy_espeak_data(folder)
    return SherpaBundle(
        folder=folder,
        model=model,
        config=json_path,
        tokens=tokens,
        espeak_data=espeak_data,
        options=sherpa_options(config),
    )


def bundle_checkpoint(
    source: Path | str,
    folder: Path | str,
    config: VoiceConfig | None = None,
    espeak_voice: str | None = None,
    name: str | None = None,
) -> SherpaBundle:
    """Export a Piper ``.ckpt`` (``trainer.checkpoints.export.export_voice``, into a temporary folder) and bundle
    it in ``folder`` as :func:`write_bundle`; ``name`` defaults to ``FOLDER.onnx``.

    Raises:
        SherpaBundleError, VoiceError, EspeakVoiceError, EspeakDataError: as :func:`write_bundle` and
            ``export_voice`` (the folder is checked before the export).
    """
    with importing("trainer.checkpoints.export"):
        from trainer.checkpoints.export import export_voice

    folder = check_folder(folder)
    if config is not None:
        check_fit(config)  # before the export
    name = name or f"{folder.resolve().name}.onnx"
    with tempfile.TemporaryDirectory(prefix="voice-studio-sherpa-") as work:
        exported, _ = export_voice(source, Path(work) / name, config, espeak_voice)
        return write_bundle(exported, folder, espeak_voice=espeak_voice, name=name)
