"""A dataset project: curated copies of the recordings plus a manifest, built by import.

Layout of a project folder (the manifest's record is ``trainer.dataset.manifest``)::

    manifest.json      versioned record of every clip: source, hash, text, status, measurements, edits
    clips/ID.wav       curated copy (mono float32 WAV at the source rate); fixes rewrite these, never sources
    unpacked/NAME/     contents of imported archives (``trainer.dataset.archives``)

Clips sliced from a long recording (``trainer.dataset.slicing_run.slice_recordings``) carry
their ``span`` in the source and a draft text from a recognizer; they stay
unreviewed (``reviewed`` false) until a person confirms the text
(``trainer.dataset.curation``).

Import is incremental and resumable: a clip whose source (path and content hash)
is already in the manifest is not read again (its transcript is: ``trainer.dataset.reread``), and the
manifest is rewritten
atomically after every batch, so an interrupted import loses at most the batch
in flight. A cancelled one (``trainer.tasks.TaskState``) records every clip
already measured and then raises ``trainer.tasks.Cancelled``; importing the
same sources again resumes it. Clips are analysed in parallel worker processes (never more workers
than clips; the work itself is in ``trainer.dataset.jobs``). Work that makes a project (import, slicing)
runs in :func:`making`, which removes the folders it made when the work leaves no manifest.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engines.files import sha256_file
from engines.words import count
from trainer.dataset import jobs
from trainer.dataset.import_result import ImportResult
from trainer.dataset.loudness_gap import loudness_note
from trainer.dataset.manifest import ClipEntry, NotAProject, SlicePlan, read_manifest, write_manifest
from trainer.dataset.reread import as_imported, reread
from trainer.dataset.sources import SourceClip, scan
from trainer.dataset.workers import run_jobs
from trainer.out_folder import check_folder_path
from trainer.tasks import Cancelled, TaskState

BATCH = 32
"""Clips per manifest write (or fewer: see ``SAVE_EVERY_S``)."""
SAVE_EVERY_S = 1.0
"""Longest time, s, between manifest writes while clips come in: the Dataset page shows them as they arrive."""
VAD_GROUP = 8
"""Most clips one worker job reads and measures together (``trainer.dataset.jobs.process_group``). Small, so a
Cancel stops within one group per worker and keeps no more than that. Measured on the 240-clip target-voice import,
2 workers on 2 shared cores, 5 runs each: a Cancel at 60 clips stopped after 0.35-0.98 s keeping 80 (groups of 30:
1.4-2.4 s, keeping 120); the whole import took 7.4-20.2 s, median 8.6 s (groups of 30: 5.1-12.3 s, median 10.4 s),
so no throughput cost shows above the noise."""


class DatasetProject:
    """A project folder and its manifest.

    ``DatasetProject(folder)`` opens an existing project and creates nothing;
    :meth:`create` (import and slicing) makes the folder when it is missing.

    Raises:
        NotAProject: (opening) ``folder`` has no ``manifest.json``.
        OutFolderError: (creating) ``folder`` is a file or lies under one.
        MetadataError: a manifest that cannot be read (names the file and field).
    """

    def __init__(self, folder: Path | str, *, create: bool = False) -> None:
        self.folder = Path(folder)
        if create:
            check_folder_path(self.folder, "project folder")  # a file there is named, not an OS error
            (self.folder / "clips").mkdir(parents=True, exist_ok=True)
        elif not self.manifest_path.is_file():
            raise NotAProject(self.folder)
        self.voice_config: str | None = None
        """The Piper ``.onnx.json`` texts are measured against (``None``: the embedded voice's)."""
        self.slicings: list[SlicePlan] = []
        """Where each long recording sliced (or being sliced) is cut (``trainer.dataset.slicing_run``)."""
        self.clips: dict[str, ClipEntry] = self._read_manifest()

    @classmethod
    def create(cls, folder: Path | str) -> DatasetProject:
        """Open the project in ``folder``, making the folder (and ``clips/``) first when missing."""
        return cls(folder, create=True)

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    @property
    def target_config(self) -> str:
        """Path of the voice config texts are measured against."""
        return self.voice_config or str(_default_voice_config())

    def clip_path(self, clip_id: str) -> Path:
        """The curated copy of a clip."""
        return self.folder / "clips" / f"{clip_id}.wav"

    def _read_manifest(self) -> dict[str, ClipEntry]:
        if not self.manifest_path.exists():
            return {}
        self.voice_config, clips, self.slicings = read_manifest(self.manifest_path)
        return clips

    def save(self) -> None:
        """Write the manifest atomically."""
        write_manifest(self.manifest_path, self.voice_config, self.clips, self.slicings)

    def check_voice(self) -> None:
        """Refuse, before any work, a voice config that cannot phonemize the texts (an espeak voice espeak-ng
        lacks), rather than one error per clip from the worker processes.

        Raises:
            VoiceError: naming the config and its field (``engines.espeak.check_config``), or an unreadable config.
            EspeakDataError: piper-tts's espeak-ng data is missing or damaged.
        """
        from engines.espeak import check_config
        from engines.voice import load_config

        check_config(load_config(Path(self.target_config)))

    def import_sources(
        self,
        paths: list[Path | str],
        workers: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        voice_config: Path | None = None,
        *,
        state: TaskState | None = None,
        replace_texts: bool = False,
    ) -> ImportResult:
        """Scan ``paths`` and add every new recording: analyse it and write its curated copy.

        Clips already present get what their source says now (``trainer.dataset.reread``): a missing
        transcript or speaker is filled in; a transcript worded otherwise is listed in ``changed``, and
        replaced only with ``replace_texts`` (never a text typed in the studio).
        Texts are measured against ``voice_config`` (a Piper ``.onnx.json``; default:
        the embedded voice's), the voice the dataset will fine-tune.
        ``progress(done, total)`` (or ``state.progress``) counts the clips found, those already
        present done from the start; it is called once before the first new clip and after each.
        Unreadable clips are recorded with ``status='error'`` and a message naming the file.

        Raises:
            Cancelled: ``state`` was cancelled; the clips measured until then are in the manifest
                (``partial`` is their ``ImportResult``), and importing again resumes.
        """
        if voice_config:
            self.voice_config = str(voice_config)
        self.check_voice()
        state = TaskState.of(state, progress)
        state.status("Looking for recordings…")
        unpacked = self.folder / "unpacked"
        before = set(unpacked.iterdir()) if unpacked.is_dir() else None
        found = scan(list(paths), unpack_dir=unpacked)
        _forget_empty_unpacks(unpacked, before, found.clips)
        state.status(f"Comparing {count(len(found.clips), 'recording')} with the clips already imported…")
        result = ImportResult(problems=list(found.problems))
        known = {(c.source, c.source_sha256) for c in self.clips.values()}
        imported, reread_any = as_imported(self.clips), False
        todo: list[tuple[str, SourceClip, str]] = []
        for clip in found.clips:
            key = (str(clip.audio), sha256_file(clip.audio))
            if key in known:
                result.unchanged += 1
                if key in imported:
                    reread_any |= reread(imported[key], clip, result, self.target_config, replace=replace_texts)
            else:
                todo.append((self._new_id(clip, {t[0] for t in todo}), clip, key[1]))
        if reread_any:
            self.save()
        self._run(todo, workers, state, result)
        if note := loudness_note(self, result.added):
            result.notes.append(note)
        return result

    def apply_fixes(
        self,
        clip_ids: list[str] | None = None,
        *,
        resample_to: int | None = None,
        trim: bool = False,
        normalize: bool = False,
        workers: int | None = None,
        state: TaskState | None = None,
    ) -> list[str]:
        """Apply fixes to the curated copies (never the sources) and measure them again; returns the ids fixed.

        Order: trim silence (keeping a margin), normalize loudness (with a peak
        limit), resample. Each clip's ``edits`` records what was done.
        ``state.progress(done, total)`` counts clips.

        Raises:
            Cancelled: ``state`` was cancelled; the clips fixed until then are recorded in the manifest.
        """
        ids = [i for i in (clip_ids or list(self.clips)) if self.clips[i].status == "ok"]
        if not ids or not (resample_to or trim or normalize):
            return []
        self.check_voice()
        voice_config = self.target_config
        work = [
            (
                str(self.clip_path(i)),
                self.clips[i].text,
                self.clips[i].analysis,
                resample_to,
                trim,
                normalize,
                voice_config,
            )
            for i in ids
        ]
        state, fixed = TaskState.of(state), []
        state.progress(0, len(ids))
        try:
            for index, (analysis, edits) in run_jobs(jobs.fix, work, workers, state):
                self.clips[ids[index]].analysis = analysis
                self.clips[ids[index]].edits.extend(edits)
                fixed.append(ids[index])
                state.progress(len(fixed), len(ids))
        finally:
            self.save()
        if len(fixed) < len(ids):
            raise Cancelled(
                f"Fixes cancelled: {len(fixed)} of {count(len(ids), 'clip')} fixed", done=len(fixed), total=len(ids)
            )
        return ids

    def _new_id(self, clip: SourceClip, taken: set[str]) -> str:
        base = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in clip.audio.stem) or "clip"
        candidate, n = base, 1
        # the ids a slicing cut short has still to make (slicing again resumes it) are taken too
        pending = {p.clip_id(i) for p in self.slicings if not p.complete for i in range(len(p.spans))}
        while candidate in self.clips or candidate in taken or candidate in pending:
            n += 1
            candidate = f"{base}_{n}"
        return candidate

    def _run(self, todo, workers, state: TaskState, result: ImportResult) -> None:
        if not todo:
            return
        work = [
            (clip_id, str(clip.audio), str(self.clip_path(clip_id)), clip.text, self.target_config)
            for clip_id, clip, _ in todo
        ]
        groups, done, total = _groups(work, workers), result.unchanged, result.unchanged + len(todo)
        firsts = [sum(len(g) for g in groups[:i]) for i in range(len(groups))]
        state.progress(done, total)
        saved = time.monotonic()
        try:
            for index, outcomes in run_jobs(jobs.process_group, groups, workers, state, clips=len(work)):
                for (clip_id, clip, digest), outcome in zip(todo[firsts[index] :], outcomes, strict=False):
                    entry = ClipEntry(clip_id, str(clip.audio), digest, clip.text, clip.speaker, clip.origin, **outcome)
                    self.clips[clip_id] = entry
                    (result.failed if entry.status == "error" else result.added).append(clip_id)
                    done += 1
                    if done % BATCH == 0 or time.monotonic() - saved >= SAVE_EVERY_S:
                        self.save()
                        saved = time.monotonic()
                    state.progress(done, total)
        finally:
            self.save()  # whatever was measured stays recorded, even when the import is interrupted
        if done < total:
            message = f"Import cancelled: {done} of {count(total, 'clip')} kept; import again to go on"
            raise Cancelled(message, done=done, total=total, partial=result)


@contextmanager
def making(folder: Path | str) -> Iterator[DatasetProject]:
    """The project in ``folder`` for work that adds clips (import, slicing), made when missing. When the work
    ends (or fails) with no manifest written, the folders it made are removed: ``folder`` and the parents it
    lacked, or, where ``folder`` was there already, the ``clips/`` and ``unpacked/`` made in it; so a failed
    import leaves no half-made project for the other commands to call "not a dataset project".

    Raises:
        OutFolderError: ``folder`` is a file or lies under one.
    """
    folder = Path(folder)
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    made = missing[-1:] or [p for p in (folder / "clips", folder / "unpacked") if not p.exists()]
    try:
        yield DatasetProject.create(folder)
    finally:
        if not (folder / "manifest.json").is_file():
            for path in made:  # none of them was there before: all they hold is this work's
                shutil.rmtree(path, ignore_errors=True)


def check_project_or_new(folder: Path | str) -> None:
    """Refuse a ``folder`` a command would make a project in when it holds other things and no project.

    A missing or empty folder, or one with a ``manifest.json``, passes (the project is made or opened there; a
    file in the folder's place is named when the project is made, ``check_folder_path``). An empty ``clips/`` is
    no one's files: :func:`making` (a page's job) makes it before the work starts.

    Raises:
        NotAProject: ``folder`` is a folder with things in it and no ``manifest.json``.
    """
    folder = Path(folder)
    if not folder.is_dir() or (folder / "manifest.json").is_file():
        return
    clips = folder / "clips"
    if any(path != clips or any(clips.iterdir()) for path in folder.iterdir()):
        raise NotAProject(folder, holds_other_things=True)


def _forget_empty_unpacks(unpacked: Path, before: set[Path] | None, clips: list) -> None:
    """Remove what this import unpacked from archives holding no recording (``unpacked/NAME/`` made now, and
    ``unpacked/`` itself when it was made now and is left empty): a README in a zip is no source to keep."""
    if not unpacked.is_dir():
        return
    for made in set(unpacked.iterdir()) - (before or set()):
        if not any(clip.audio.is_relative_to(made) for clip in clips):
            shutil.rmtree(made, ignore_errors=True)
    if before is None and not any(unpacked.iterdir()):
        unpacked.rmdir()


def _groups(work: list, workers: int | None) -> list[list]:
    """Clips in groups of at most ``VAD_GROUP`` (their VAD passes are batched); about 4 groups per worker
    when there are enough clips, so the workers finish together."""
    per_worker = 4 * (workers or os.cpu_count() or 1)
    size = max(1, min(VAD_GROUP, -(-len(work) // per_worker)))
    return [work[i : i + size] for i in range(0, len(work), size)]


def _default_voice_config() -> Path:
    from engines.registry import default_voice

    return default_voice().config.path
