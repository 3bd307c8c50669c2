"""Recording prompts chosen for coverage (``trainer.dataset.prompts``) through the real espeak-ng phonemizer of the
default voice, and ``voice-studio dataset prompts``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import shared_path

from trainer.dataset.prompts.corpus import PromptsError, read_corpus, shipped_corpus
from trainer.dataset.prompts.selection import choose, coverage
from trainer.dataset.prompts.units import Prompt, corpus_units, phrases, prompt_units


@pytest.fixture(scope="module")
def phonemizer():
    """The default voice's phonemizer (espeak-ng, en-us)."""
    from engines.phonemes import Phonemizer
    from engines.registry import default_voice

    return Phonemizer(default_voice().config)


@pytest.fixture(scope="module")
def shipped(phonemizer) -> list[Prompt]:
    """The shipped corpus's lines with their units, in corpus order."""
    return corpus_units(phonemizer, read_corpus(shipped_corpus()))


def words_prefix(lines: list[Prompt], words: int) -> list[Prompt]:
    """The first lines of ``lines`` that hold at most ``words`` words together."""
    taken, total = [], 0
    for line in lines:
        if total + line.words > words:
            break
        taken.append(line)
        total += line.words
    return taken


def test_the_shipped_corpus_is_several_hundred_varied_cc0_lines():
    """The shipped set: 490 distinct lines, CC0 said in its header, questions, exclamations and digits among them."""
    lines = read_corpus(shipped_corpus())
    header = shipped_corpus().read_text(encoding="utf-8").split("\n", 5)[:5]
    assert len(lines) == 490 and any("CC0 1.0" in line for line in header)
    assert sum(line.endswith("?") for line in lines) >= 40 and sum(line.endswith("!") for line in lines) >= 15
    assert sum(any(c.isdigit() for c in line) for line in lines) >= 60
    assert max(len(line.split()) for line in lines) <= 25


def test_units_fold_length_marks_drop_stress_and_pair_across_words(phonemizer):
    """``iː`` is one phoneme, stress marks are no units, pairs run across a word space but not across a comma."""
    assert phrases(["ð", "ə", " ", "k", "ˈ", "iː", ",", " ", "ˈ", "a", "ɪ"]) == [["ð", "ə", "k", "iː"], ["a", "ɪ"]]
    line = prompt_units(phonemizer, "The key, I said.")
    assert ("ə", "k") in line.diphones and "iː" in line.phonemes and "ˈ" not in line.phonemes
    assert not any(pair[0] == "iː" and pair[1] == "a" for pair in line.diphones)  # the comma is a pause


def test_units_come_after_the_text_front_end(phonemizer):
    """Digits and money are read as words first: "$6.75" says "six dollars and seventy five cents"."""
    line = prompt_units(phonemizer, "It costs $6.75.")
    assert line.words == 8 and "d" in line.phonemes and ("l", "ɚ") in line.diphones


def test_the_selection_is_deterministic(shipped):
    """The same corpus and recorded lines give the same prompts, in the same order."""
    first = [p.text for p in choose(shipped, shipped[:3], 60).chosen]
    assert first == [p.text for p in choose(list(shipped), list(shipped[:3]), 60).chosen]
    assert len(first) == 60 and len(set(first)) == 60


def test_coverage_grows_faster_than_the_corpus_order(shipped):
    """On the shipped set, the first 50 prompts chosen cover 678 diphones and all 46 phonemes in 372 words; the
    first 50 lines in order, 544 and 43 in 410 words (measured: 1.25 times as many). Given the words greedy used,
    the order covers 517 (greedy: 1.31 times as many)."""
    chosen = choose(shipped, [], 50).chosen
    greedy, order = coverage(chosen, shipped), coverage(shipped[:50], shipped)
    words = sum(p.words for p in chosen)
    same_words = coverage(words_prefix(shipped, words), shipped)
    assert greedy.diphones >= 1.15 * order.diphones and greedy.phonemes == greedy.phonemes_seen > order.phonemes
    assert words <= sum(p.words for p in shipped[:50])
    assert greedy.diphones >= 1.2 * same_words.diphones


def test_the_whole_corpus_is_covered_and_every_line_offered_once(shipped):
    """Asked for more than the corpus holds, every line comes once and every unit is covered."""
    selection = choose(shipped, [], 10_000)
    assert sorted(p.index for p in selection.chosen) == list(range(len(shipped)))
    assert selection.after.diphones == selection.after.diphones_seen == 1014


def test_recorded_lines_count_as_covered_and_are_not_offered(phonemizer, shipped):
    """A recorded line (in other case and spacing) is not offered again, its units count before the first
    prompt, and a line whose units are all recorded comes after every line that adds one."""
    best = choose(shipped, [], 1).chosen[0]
    recorded = [prompt_units(phonemizer, "  " + best.text.lower().replace(" ", "  ") + " ")]
    selection = choose(shipped, recorded, 489)
    assert best.text not in [p.text for p in selection.chosen] and len(selection.chosen) == 489
    assert selection.before.diphones == len(best.diphones) and selection.before.phonemes == len(best.phonemes)

    def line(text: str, index: int, pair: str) -> Prompt:
        return Prompt(text=text, index=index, phonemes=frozenset(pair), diphones=frozenset([tuple(pair)]), words=2)

    covered, fresh = line("Said already.", 0, "ab"), line("Something new.", 1, "ac")
    assert choose([covered, fresh], [], 2).chosen == [covered, fresh]  # a tie: the earlier line
    assert choose([covered, fresh], [line("Said.", 5, "ab")], 2).chosen == [fresh, covered]


def test_a_corpus_file_skips_blanks_comments_and_repeats(tmp_path):
    """Blank lines and '#' comments are skipped, a repeated line (case and spacing aside) kept once, in order."""
    path = tmp_path / "mine.txt"
    path.write_text("# my lines\n\nTurn on the light.\n  turn ON the   light. \nWhere is it?\n", encoding="utf-8")
    assert read_corpus(path) == ["Turn on the light.", "Where is it?"]


@pytest.mark.parametrize(
    ("data", "said"),
    [(b"Good line.\nBad \xff line.\n", "line 2 is not UTF-8 text"), (b"\n# only a comment\n  \n", "no prompts")],
)
def test_a_bad_corpus_file_names_the_file(tmp_path, data, said):
    """A file that is not UTF-8 names the file and the line; one without a prompt names the file."""
    path = tmp_path / "prompts.txt"
    path.write_bytes(data)
    with pytest.raises(PromptsError, match=said) as raised:
        read_corpus(path)
    assert str(raised.value).startswith(f"{path}: ")


def run_prompts(*args: str, seed: str = "0") -> subprocess.CompletedProcess:
    """``voice-studio dataset prompts ARGS`` in a fresh interpreter with string hashing seeded by ``seed``."""
    env = {**os.environ, "PYTHONHASHSEED": seed}
    command = [sys.executable, "-m", "studio", "dataset", "prompts", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


LONG = " ".join(["The kettle whistled twice, then fell silent."] * 12)
"""A line of 12 sentences, about 1,000 phoneme_ids: a take of it is no training clip (the dataset's ``too_long``)."""


def test_a_line_too_long_for_one_clip_or_with_nothing_to_say_is_never_offered_and_is_named(tmp_path, phonemizer):
    """A corpus line over the dataset's phoneme_ids limit is left out by the coverage choice and by a list
    recorded in order (it would be kept out of training), and the summary names it in one line; so is a line
    with no phoneme in it ("...")."""
    from engines.long_sentences import MAX_PHONEME_IDS
    from trainer.dataset.prompts.plan import Recorded, next_prompts, summary

    corpus = [LONG, "Who left the garden gate open?", "Absolutely not."]
    for ordered in (False, True):
        selection = next_prompts(phonemizer, corpus, Recorded(texts=[], seconds=0.0), 5, ordered=ordered)
        assert sorted(p.text for p in selection.chosen) == sorted(corpus[1:]), ordered
        assert [p.text for p in selection.too_long] == [LONG] and selection.too_long[0].phoneme_ids > MAX_PHONEME_IDS
    said = summary(selection, Recorded(texts=[], seconds=0.0))
    assert said[1].startswith("with these 2 prompts (about")
    named = [line for line in said if "too long" in line]
    assert len(named) == 1 and "'The kettle whistled twice" in named[0] and f"over {MAX_PHONEME_IDS}" in named[0]
    path = tmp_path / "mine.txt"
    path.write_text("\n".join(corpus) + "\n", encoding="utf-8")
    result = run_prompts("--corpus", str(path))
    assert result.returncode == 0 and sorted(result.stdout.splitlines()) == sorted(corpus[1:]), result.stderr
    assert "left out 1 line too long for one training clip" in result.stderr
    unspoken = next_prompts(
        phonemizer, ["...", "Who left the garden gate open?", "—"], Recorded(texts=[], seconds=0.0), 5
    )
    assert [p.text for p in unspoken.chosen] == ["Who left the garden gate open?"]  # nothing to say in the others
    assert any(
        "left out 2 lines with nothing to say (no phoneme): '...'" in line
        for line in summary(unspoken, Recorded(texts=[], seconds=0.0))
    )
    one = next_prompts(phonemizer, corpus, Recorded(texts=[], seconds=0.0), 1)
    assert summary(one, Recorded(texts=[], seconds=0.0))[1].startswith("with this prompt (about")  # not "these 1"


def test_the_cli_prints_the_same_prompts_whatever_the_hash_seed(shipped):
    """Without a project: the prompts on stdout are ``choose``'s, whatever order sets iterate in, and stderr says
    the coverage, the minutes and the guidance with its sources."""
    runs = [run_prompts("--count", "12", seed=seed) for seed in ("1", "2")]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.splitlines() == [p.text for p in choose(shipped, [], 12).chosen]
    assert "of 1,014 diphones and 46 of 46 phonemes seen in the corpus" in runs[0].stderr
    assert (
        "recorded: nothing yet" in runs[0].stderr
        and re.search(r"\(about [1-5]\d s of speech to read\)", runs[0].stderr)  # 12 short lines, in seconds
        and "piper-recording-studio#27" in runs[0].stderr
    )


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (0.4, "0 s"),
        (42, "42 s"),
        (90, "1.5 min"),
        (590, "9.8 min"),
        (599.7, "10 min"),
        (754, "13 min"),
        (3599, "1 h 00 min"),
        (86_400, "24 h 00 min"),
    ],
)
def test_recorded_speech_is_said_in_the_unit_that_fits_it(seconds, said):
    """Seconds under a minute, minutes with a decimal under 10 and whole to the hour, then hours: never
    ``0.0 min``, ``10.0 min`` beside ``10 min`` for the same span, or ``1440 min``."""
    from trainer.dataset.prompts.guidance import minutes_said

    assert minutes_said(seconds) == said


def test_the_cli_skips_a_projects_recorded_lines(tmp_path, phonemizer, shipped):
    """With a project whose clips say three of the corpus's lines, those are left out and count as covered, and
    ``-o`` writes the prompts, one a line."""
    from trainer.dataset.project import DatasetProject
    from trainer.dataset.prompts.guidance import minutes_said
    from trainer.dataset.prompts.plan import recorded

    cards = shared_path("corpus", "real-speech", "cards")
    source = tmp_path / "recorded"
    source.mkdir()
    said = [p.text for p in choose(shipped, [], 3).chosen]
    for n in range(1, len(said) + 1):
        shutil.copy(cards / f"00{n}.wav", source / f"00{n}.wav")
    (source / "metadata.csv").write_text("".join(f"00{n}|{t}\n" for n, t in enumerate(said, 1)), encoding="utf-8")
    project = DatasetProject.create(tmp_path / "project")
    project.import_sources([source], workers=1)
    minutes = minutes_said(recorded(project).seconds)
    out = tmp_path / "next.txt"
    result = run_prompts(str(tmp_path / "project"), "--count", "5", "-o", str(out))
    assert result.returncode == 0, result.stderr
    expected = choose(shipped, corpus_units(phonemizer, said), 5)
    assert out.read_text(encoding="utf-8").splitlines() == [p.text for p in expected.chosen]
    assert not set(said) & set(out.read_text(encoding="utf-8").splitlines())
    assert f"recorded: 3 lines ({minutes}), {expected.before.describe()}" in result.stderr
    assert re.fullmatch(r"[1-9]\d? s", minutes)  # three short clips in seconds, not "0.1 min"
    assert expected.after.describe() in result.stderr and result.stdout == ""


def test_the_cli_names_a_bad_corpus_file(tmp_path):
    """A corpus that is not UTF-8 is one line naming the file and the line, exit status 2."""
    path = tmp_path / "latin1.txt"
    path.write_bytes("Caf\xe9 au lait, s'il vous pla\xeet.\n".encode("latin-1"))
    result = run_prompts("--corpus", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"voice-studio: error: {path}: line 1 is not UTF-8 text (byte 3); save the file as UTF-8"
    ]


def test_the_cli_notes_that_the_shipped_prompts_are_english(tmp_path):
    """A voice of another language (the default voice's model with espeak-ng ``de``) reading the shipped set gets a
    note to give its own corpus; the prompts still come, counted in its phonemes."""
    import json

    from engines.registry import default_voice

    voice = default_voice()
    (tmp_path / "de.onnx").symlink_to(voice.model_path)
    config = json.loads(voice.config.path.read_text(encoding="utf-8"))
    config["espeak"]["voice"] = "de"
    (tmp_path / "de.onnx.json").write_text(json.dumps(config), encoding="utf-8")
    result = run_prompts("--voice", str(tmp_path / "de.onnx"), "--count", "3")
    assert result.returncode == 0, result.stderr
    assert "note: the studio's prompts are English; give --corpus with lines in de" in result.stderr
    assert len(result.stdout.splitlines()) == 3
