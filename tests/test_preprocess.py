"""The trainer's preprocessed cache: Piper's spectrogram and phoneme_ids, memory-mapped, swapped in whole."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile
from conftest import shared_path

torch = pytest.importorskip("torch")


def test_spectrogram_equals_pipers():
    """Our linear spectrogram is Piper's ``spectrogram_torch`` (random audio and a real clip)."""
    from piper.train.vits.mel_processing import spectrogram_torch

    from trainer.gan.mel import spectrogram

    clip, _ = soundfile.read(str(shared_path("corpus", "real-speech", "cards", "001.wav")), dtype="float32")
    for audio in (torch.rand(2, 22050 * 2) * 2 - 1, torch.from_numpy(clip)[None]):
        ours = spectrogram(audio, 1024, 256, 1024)
        theirs = spectrogram_torch(audio, 1024, 22050, 256, 1024, center=False)
        assert ours.shape == theirs.shape and ours.shape[-1] == audio.shape[-1] // 256
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path_factory.mktemp("cards"))
    project.import_sources([shared_path("corpus", "real-speech", "cards")], workers=2)
    return project


def test_cache_holds_piper_phoneme_ids_audio_and_spectrograms(cards, tmp_path):
    """Each trainable clip's phoneme_ids are piper-tts's; audio is at 22,050 Hz; spec frames match the audio."""
    from piper.phoneme_ids import phonemes_to_ids
    from piper.phonemize_espeak import EspeakPhonemizer

    from trainer.data.preprocess import PreprocessedCache, build_cache
    from trainer.dataset.export import trainable
    from trainer.gan.mel import spectrogram

    seen = []
    folder = build_cache(cards, tmp_path / "cache", workers=2, progress=lambda d, t: seen.append((d, t)))
    cache = PreprocessedCache(folder)
    clips = trainable(cards)
    assert len(cache) == len(clips) == 5 and seen[-1] == (5, 5)
    espeak = EspeakPhonemizer()
    for index, clip in enumerate(clips):
        expected = [i for sentence in espeak.phonemize("en-us", clip.text) for i in phonemes_to_ids(sentence)]
        assert cache.phoneme_ids(index).tolist() == expected
        duration = clip.analysis["duration_s"]
        assert len(cache.audio(index)) == pytest.approx(duration * 22050, abs=2)
        spec = cache.spec(index)
        assert spec.shape == (513, len(cache.audio(index)) // 256)
        again = spectrogram(torch.from_numpy(np.array(cache.audio(index)))[None])[0].numpy()
        np.testing.assert_allclose(spec, again, rtol=1e-5, atol=1e-5)  # two float32 FFTs: rounding only
    assert cache.settings.sample_rate == 22050 and cache.utterances[0].text == clips[0].text


def test_rebuild_replaces_the_cache_whole(cards, tmp_path):
    """A second build swaps in a new folder; a failed build leaves the old cache as it was."""
    from trainer.data.preprocess import CacheSettings, PreprocessedCache, build_cache
    from trainer.dataset.curation import set_excluded

    folder = build_cache(cards, tmp_path / "cache", workers=1)
    before = (folder / "cache.json").read_bytes()
    set_excluded(cards, [c for c in cards.clips], True)
    with pytest.raises(ValueError, match="no clip can be trained on"):
        build_cache(cards, folder, workers=1)
    assert (folder / "cache.json").read_bytes() == before
    set_excluded(cards, ["001", "002"], False)
    build_cache(cards, folder, CacheSettings(sample_rate=16000), workers=1)
    cache = PreprocessedCache(folder)
    assert len(cache) == 2 and cache.settings.sample_rate == 16000
    assert [p.name for p in tmp_path.iterdir()] == ["cache"]  # nothing left beside it
    set_excluded(cards, [c for c in cards.clips], False)


def test_a_dataset_whose_voice_espeak_lacks_is_refused_before_preprocessing(cards, joe, tmp_path):
    """A project whose voice config names an espeak voice espeak-ng lacks (en_US): the cache, the run and the
    Train page's pre-flight refuse it naming the field (a worker raised piper's 'Failed to set voice'), and
    no run folder is left."""
    import json
    import re
    import shutil

    from engines.base import VoiceError
    from trainer.data.preprocess import build_cache
    from trainer.dataset.project import DatasetProject
    from trainer.run.options import RunOptions
    from trainer.run.preflight import preflight
    from trainer.run.train import create_run

    config = json.loads(joe.config.path.read_text(encoding="utf-8"))
    config["espeak"]["voice"] = "en_US"
    bad = tmp_path / "us.onnx.json"
    bad.write_text(json.dumps(config), encoding="utf-8")
    shutil.copytree(cards.folder, tmp_path / "project")
    project = DatasetProject(tmp_path / "project")
    project.voice_config = str(bad)
    project.save()
    field = f"{bad}: field 'espeak.voice'"
    with pytest.raises(VoiceError, match=re.escape(field)):
        build_cache(project, tmp_path / "cache", workers=1)
    assert not (tmp_path / "cache").exists()
    options = RunOptions(dataset=project.folder, out=tmp_path / "run", preset="test", epochs=1)
    assert any(f.blocking and field in f.message for f in preflight(options))
    with pytest.raises(VoiceError, match=re.escape(field)):
        create_run(options)
    assert not (tmp_path / "run").exists()


def test_not_a_cache_is_refused(tmp_path):
    """Opening a folder without cache.json names the folder."""
    from trainer.data.preprocess import PreprocessedCache

    with pytest.raises(ValueError, match="not a preprocessed cache"):
        PreprocessedCache(tmp_path)


def test_training_phoneme_ids_follow_pipers_trainer_on_quotes(joe):
    """A text ending in a closing quote gets the empty sentence Piper's trainer adds; inference has none."""
    from piper.phoneme_ids import phonemes_to_ids
    from piper.phonemize_espeak import EspeakPhonemizer

    from engines.phonemes import Phonemizer, sentences
    from trainer.data.preprocess import training_phoneme_ids

    phonemizer = Phonemizer(joe.config)
    for text in ('She said, "Keep your voice down."', "Plain text, no quotes.", 'One. "Two," he said. "Three."'):
        expected = [i for s in EspeakPhonemizer().phonemize("en-us", text) for i in phonemes_to_ids(s)]
        assert training_phoneme_ids(phonemizer, text) == expected
    inference = [i for s in sentences(phonemizer, 'She said, "Keep your voice down."') for i in s.phoneme_ids]
    assert training_phoneme_ids(phonemizer, 'She said, "Keep your voice down."')[-3:] == [1, 0, 2]
    assert inference[-3:] != [1, 0, 2]


@pytest.mark.parametrize(("n_fft", "hop_length", "win_length"), [(1024, 256, 1024), (512, 128, 400)])
def test_numpy_spectrogram_equals_the_trainers(n_fft, hop_length, win_length):
    """The cache workers' NumPy STFT is trainer.gan.mel.spectrogram (PyTorch), frame-major, to float32 rounding."""
    from trainer.data.preprocess import spectrogram as numpy_spectrogram
    from trainer.gan.mel import spectrogram

    audio = (np.random.default_rng(7).standard_normal(22050 + 37) * 0.3).astype(np.float32)
    ours = numpy_spectrogram(audio, n_fft, hop_length, win_length)
    theirs = spectrogram(torch.from_numpy(audio)[None], n_fft, hop_length, win_length)[0].T.numpy()
    assert ours.dtype == np.float32 and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    assert np.abs(ours - theirs).max() < 1e-6 * theirs.max() * 10
    with pytest.raises(ValueError, match="too short"):
        numpy_spectrogram(audio[: (n_fft - hop_length) // 2], n_fft, hop_length, win_length)


def test_training_phoneme_ids_are_those_of_the_text_as_spoken(joe):
    """Training reads a transcript as inference says it: "$3.50 for 2 kg" as dollars, cents and kilograms (the
    voice never learns "dollar three point five zero")."""
    from piper.phoneme_ids import phonemes_to_ids
    from piper.phonemize_espeak import EspeakPhonemizer

    from engines.phonemes import Phonemizer
    from trainer.data.preprocess import training_phoneme_ids

    words = "I paid three dollars and fifty cents for two kilograms."
    expected = [i for s in EspeakPhonemizer().phonemize("en-us", words) for i in phonemes_to_ids(s)]
    assert training_phoneme_ids(Phonemizer(joe.config), "I paid $3.50 for 2 kg.") == expected


def test_a_cache_made_by_another_text_front_end_is_out_of_date_and_refused(cards, tmp_path):
    """cache.json records the text front end; one built by another (a cache from before normalization has none)
    is out of date on the Dataset page, and Check and a run on it refuse it, saying to build it again."""
    import json

    from engines.frontend import frontend_id
    from trainer.data.preprocess import PreprocessedCache, build_cache
    from trainer.data.preprocess.status import cache_status
    from trainer.run.errors import RunError
    from trainer.run.options import RunOptions
    from trainer.run.preflight import preflight
    from trainer.run.train import create_run

    folder = build_cache(cards, tmp_path / "cache", workers=1)
    document = json.loads((folder / "cache.json").read_text(encoding="utf-8"))
    assert document["frontend"] == frontend_id("en-us") and cache_status(cards).stale == []
    del document["frontend"]  # as a cache built before the front end existed
    (folder / "cache.json").write_text(json.dumps(document), encoding="utf-8")
    assert cache_status(cards).stale == ["texts normalized by another text front end"]
    said = PreprocessedCache(folder).stale_frontend()
    assert "no text front end (texts as written)" in said and "build the cache again" in said
    options = RunOptions(dataset=folder, out=tmp_path / "run", preset="test", epochs=1)
    assert any(f.blocking and said in f.message for f in preflight(options))
    with pytest.raises(RunError, match="build the cache again"):
        create_run(options)
    assert not (tmp_path / "run").exists()


def test_a_project_lexicon_is_applied_to_the_cache_and_an_edit_marks_it_out_of_date(cards, tmp_path):
    """The project's lexicon.txt says its words in the cache's phoneme_ids; editing it marks the cache out of
    date on the Dataset page and for a run, naming the clips that say a word the edit changed."""
    import json

    from engines.frontend import frontend_id
    from engines.frontend.lexicon import PROJECT_LEXICON, read_lexicon
    from trainer.data.preprocess import PreprocessedCache, build_cache
    from trainer.data.preprocess.status import cache_status

    before = PreprocessedCache(build_cache(cards, tmp_path / "plain", workers=1))
    lexicon_path = cards.folder / PROJECT_LEXICON
    lexicon_path.write_text("clubs\tspades\n", encoding="utf-8")
    edited = f"the project's lexicon ({PROJECT_LEXICON}) changed since"
    try:
        stale = cache_status(cards).stale
        assert stale[0] == edited and len(stale) == 2
        assert "+lexicon:" in before.stale_frontend() and "build the cache again" in before.stale_frontend()
        folder = build_cache(cards, tmp_path / "said", workers=1)
        document = json.loads((folder / "cache.json").read_text(encoding="utf-8"))
        assert document["frontend"] == frontend_id("en-us", read_lexicon(lexicon_path))
        assert cache_status(cards).stale == [] and PreprocessedCache(folder).stale_frontend() == ""
        after = PreprocessedCache(folder)
        ids = {u.id: list(after.phoneme_ids(i)) for i, u in enumerate(after.utterances)}
        plain = {u.id: list(before.phoneme_ids(i)) for i, u in enumerate(before.utterances)}
        changed = sorted(u.id for u in after.utterances if ids[u.id] != plain[u.id])
        assert changed == sorted(u.id for u in after.utterances if "clubs" in u.text.lower()) and changed
        said = f"{len(changed)} clip{'s say' if len(changed) > 1 else ' says'} a word it changed ({', '.join(changed)})"
        assert stale[1] == said  # the clips the first edit changed, named before the cache was built again
        lexicon_path.write_text("clubs\thearts\n", encoding="utf-8")
        assert cache_status(cards).stale == [edited, said] and "build the cache again" in after.stale_frontend()
        lexicon_path.write_text("clubs\tspades\nzyzzyva\tzizziva\n", encoding="utf-8")  # a word no clip says
        assert cache_status(cards).stale == [edited, "no clip says a word it changed"]
    finally:
        lexicon_path.unlink()


def test_the_dataset_report_shows_texts_as_the_project_lexicon_says_them(cards):
    """The report's "reads as" texts apply the project's lexicon, as the cache does."""
    from engines.frontend.lexicon import PROJECT_LEXICON
    from trainer.dataset.report import build_report

    (cards.folder / PROJECT_LEXICON).write_text("clubs\tspades\n", encoding="utf-8")
    try:
        spoken = build_report(cards).spoken
    finally:
        (cards.folder / PROJECT_LEXICON).unlink()
    clubs = {c.id: c.text for c in cards.clips.values() if c.text and "clubs" in c.text}
    assert clubs and spoken == {i: text.replace("clubs", "spades") for i, text in clubs.items()}
