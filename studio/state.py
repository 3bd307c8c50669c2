"""The studio's state, without Qt: the voices it knows, where its files are, the lines spoken.

Pages and widgets receive these models in their constructors and observe them:
each model has ``events``, one :class:`Event` per kind of change, and a view
connects its ``_on_<event>`` methods (napari's model/view split). Listeners run
on the thread that changes the model; the studio changes models on the GUI
thread only. Engines are loaded through one ``engines.pool.EnginePool`` (the
speech server uses the same pool type), which :class:`StudioState` holds.
Settings (``studio.settings``) are read into these models at start and written
from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engines.base import VoiceError
from engines.pool import EnginePool
from engines.remote.settings import RemoteSettings
from engines.voice import Voice
from studio.speaking import Line
from studio.state_events import Event, Observed
from studio.state_files import FolderChanges

DEFAULT_REMOTE = RemoteSettings(url="http://127.0.0.1:5050", model="tts-1", voice="default", response_format="pcm")
"""The remote server's fields before the user set any: a Voice Studio server on this machine (``serve``)."""


@dataclass(frozen=True, kw_only=True)
class Removal:
    """A voice taken out: ``voice`` was at ``index``."""

    index: int
    voice: Voice


@dataclass(frozen=True, kw_only=True)
class Replacement:
    """A voice replaced in place: ``old`` at ``index`` is now ``new``."""

    index: int
    old: Voice
    new: Voice


@dataclass(kw_only=True)
class Found:
    """What :meth:`VoiceLibrary.add_files` (or ``Settings.apply``) did: voices added, what was refused
    (``VoiceError`` naming the file; ``ValueError`` naming a setting), and checkpoints left to read off the GUI
    thread (reading one loads torch)."""

    added: list[Voice] = field(default_factory=list)
    errors: list[Exception] = field(default_factory=list)
    checkpoints: list[Path] = field(default_factory=list)


class LibraryEvents:
    """``added(Voice)``, ``removed(Removal)``, ``replaced(Replacement)``; ``changed(list[Voice])`` after any."""

    def __init__(self) -> None:
        self.added: Event[Voice] = Event()
        self.removed: Event[Removal] = Event()
        self.replaced: Event[Replacement] = Event()
        self.changed: Event[list[Voice]] = Event()


class VoiceLibrary:
    """The voices the studio knows, in order, each model file once."""

    def __init__(self, voices: Iterable[Voice] = ()) -> None:
        self._voices: list[Voice] = []
        self.events = LibraryEvents()
        for voice in voices:
            self.add(voice)

    @property
    def voices(self) -> list[Voice]:
        """The voices, in order (a copy)."""
        return list(self._voices)

    def __len__(self) -> int:
        return len(self._voices)

    def __iter__(self) -> Iterator[Voice]:
        return iter(list(self._voices))

    def find(self, path: Path | str) -> Voice | None:
        """The voice of model file ``path``, or ``None``."""
        key = Path(path).absolute()
        return next((v for v in self._voices if v.model_path.absolute() == key), None)

    def add(self, voice: Voice) -> bool:
        """Append ``voice``; ``False`` (nothing changes) when its model file is listed already."""
        if self.find(voice.model_path) is not None:
            return False
        self._voices.append(voice)
        self.events.added.emit(voice)
        self.events.changed.emit(self.voices)
        return True

    def remove(self, voice: Voice) -> None:
        """Take ``voice`` out.

        Raises:
            ValueError: it is not in the library.
        """
        index = self._voices.index(voice)
        del self._voices[index]
        self.events.removed.emit(Removal(index=index, voice=voice))
        self.events.changed.emit(self.voices)

    def replace(self, old: Voice, new: Voice) -> None:
        """Put ``new`` where ``old`` is (e.g. a voice file read again).

        Raises:
            ValueError: ``old`` is not in the library.
        """
        index = self._voices.index(old)
        self._voices[index] = new
        self.events.replaced.emit(Replacement(index=index, old=old, new=new))
        self.events.changed.emit(self.voices)

    def added_paths(self) -> list[str]:
        """Model paths of the voices the user added (what the settings file keeps)."""
        return [str(v.model_path) for v in self._voices if v.origin == "added"]

    def load(self, paths: Iterable[Path | str] = ()) -> list[VoiceError]:
        """Add the embedded voice, the user's voice folder and the ``.onnx`` voices and folders of ``paths``
        (``engines.registry.discover``; ``.ckpt`` paths are skipped: see :meth:`add_files`); returns the
        files that could not be read."""
        from engines.registry import discover

        found = discover([Path(p) for p in paths if Path(p).suffix.lower() != ".ckpt"])
        for voice in found.voices:
            self.add(voice)
        return found.errors

    def add_files(self, paths: Iterable[Path | str]) -> Found:
        """Add ``.onnx`` voices (files, or folders searched for them), each checked as loading it does
        (``engines.registry.check_voice``); ``.ckpt`` files not listed yet are returned to be read elsewhere."""
        from engines.registry import check_voice
        from engines.voice import load_voice

        found = Found()
        files = [m for p in map(Path, paths) for m in (sorted(p.rglob("*.onnx")) if p.is_dir() else [p])]
        for path in files:
            if self.find(path) is not None:
                continue
            if path.suffix.lower() == ".ckpt":
                found.checkpoints.append(path)
                continue
            try:
                voice = check_voice(load_voice(path, origin=_origin(path)))
            except VoiceError as exc:
                found.errors.append(exc)
                continue
            if self.add(voice):
                found.added.append(voice)
        return found


def _origin(path: Path) -> str:
    """``user`` for a voice in the user's voice folder (an exported one), else ``added``."""
    from engines.registry import user_voice_dir

    return "user" if Path(path).absolute().is_relative_to(user_voice_dir().absolute()) else "added"


class SaveFolders:
    """The folder each kind of save (``"audio"``, ``"csv"``, ``"report"``) went to last, so the next save dialog of
    that kind starts there; the settings keep them across restarts. ``events.changed(kind)`` when one moves."""

    def __init__(self, folders: Mapping[str, Path | str] | None = None) -> None:
        self._folders = {str(kind): Path(folder) for kind, folder in (folders or {}).items()}
        self.events = _SaveFolderEvents()

    def folder(self, kind: str) -> Path | None:
        """The folder the last ``kind`` save went to, while it is still there (else ``None``)."""
        folder = self._folders.get(kind)
        return folder if folder is not None and folder.is_dir() else None

    def remember(self, kind: str, path: Path | str) -> None:
        """A ``kind`` file was saved at ``path``: the next ``kind`` save starts in its folder."""
        folder = Path(path).expanduser().absolute().parent
        if self._folders.get(kind) != folder:
            self._folders[kind] = folder
            self.events.changed.emit(kind)

    def record(self) -> dict[str, str]:
        """The folders by kind, as the settings file keeps them."""
        return {kind: str(folder) for kind, folder in self._folders.items()}


class _SaveFolderEvents:
    def __init__(self) -> None:
        self.changed: Event[str] = Event()


class WorkspaceEvents:
    """One event per :class:`Workspace` attribute, emitted with its new value."""

    def __init__(self) -> None:
        self.dataset_project: Event[Path] = Event()
        self.runs_dir: Event[Path] = Event()
        self.voices_dir: Event[Path] = Event()
        self.remote: Event[RemoteSettings] = Event()


class Workspace:
    """Where the studio works: the dataset project shown, the training runs, the exported voices, the folders
    files were saved to last (``save_folders``), and the remote speech server's settings (with the API key, which
    the settings file never keeps); ``datasets`` and ``runs`` say what changed in a dataset or run folder to every
    page that shows it (``studio.state_files``).

    Folders default to the user's data folders (``engines.registry.user_data_dir``/``user_voice_dir``).
    """

    dataset_project: Observed[Path] = Observed()
    runs_dir: Observed[Path] = Observed()
    voices_dir: Observed[Path] = Observed()
    remote: Observed[RemoteSettings] = Observed()

    def __init__(
        self,
        *,
        dataset_project: Path | None = None,
        runs_dir: Path | None = None,
        voices_dir: Path | None = None,
        remote: RemoteSettings | None = None,
    ) -> None:
        from engines.registry import user_data_dir, user_voice_dir

        self.events = WorkspaceEvents()
        self.datasets = FolderChanges()
        """What the pages changed in dataset folders: every page showing one observes it (``studio.state_files``)."""
        self.runs = FolderChanges()
        """What a shown run wrote (epochs, ranked checkpoints, its end): pages showing it observe it."""
        self.dataset_project = Path(dataset_project or user_data_dir() / "datasets" / "my-dataset")
        self.runs_dir = Path(runs_dir or user_data_dir() / "runs")
        self.voices_dir = Path(voices_dir or user_voice_dir())
        self.remote = remote or DEFAULT_REMOTE
        self.save_folders = SaveFolders()
        self.home_assistant: dict[str, str] = {}
        """Where Send to Home Assistant went last: ``url`` (a wyoming-piper web server), ``folder`` (a data
        folder); kept in the settings."""

    def dataset_for_training(self) -> Path | None:
        """The dataset project once it is one (it has a ``manifest.json``), else ``None``."""
        return self.dataset_project if (self.dataset_project / "manifest.json").is_file() else None


class SpokenLines:
    """The lines spoken, newest first: this session's, then those of earlier sessions (``Line.earlier``, without
    audio: the settings keep their text, voice and engine); ``events.added(Line)`` on each new one,
    ``events.earlier(list[Line])`` when earlier ones are appended."""

    def __init__(self) -> None:
        self._lines: list[Line] = []
        self.events = _LineEvents()

    @property
    def lines(self) -> list[Line]:
        """The lines, newest first (a copy)."""
        return list(self._lines)

    def add(self, line: Line) -> None:
        """Put ``line`` first."""
        self._lines.insert(0, line)
        self.events.added.emit(line)

    def add_earlier(self, lines: Iterable[Line]) -> None:
        """Put ``lines`` (of earlier sessions, newest first) last."""
        lines = list(lines)
        self._lines.extend(lines)
        self.events.earlier.emit(lines)


class _LineEvents:
    def __init__(self) -> None:
        self.added: Event[Line] = Event()
        self.earlier: Event[list[Line]] = Event()


@dataclass(kw_only=True)
class StudioState:
    """The models one studio window shares between its pages."""

    library: VoiceLibrary = field(default_factory=VoiceLibrary)
    workspace: Workspace = field(default_factory=Workspace)
    engines: EnginePool = field(default_factory=EnginePool)
    lines: SpokenLines = field(default_factory=SpokenLines)
