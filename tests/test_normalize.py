"""The text front end (issue 32): each normalization class, table by table, espeak-ng's phonemes for the key
cases, the issue's lines spoken as a person reads them, and other languages passed through."""

from __future__ import annotations

import dataclasses

import pytest

from engines.base import SynthesisOptions
from engines.frontend import Span, frontend_id, normalize, normalize_spans, split_sentences
from engines.frontend.normalize import VERSION
from engines.phonemes import Phonemizer, sentences


def said(text: str, language: str = "en-us") -> str:
    """``text`` as the front end says it for ``language``."""
    return normalize(text, language).text


CLASSES = {
    "cardinals": [
        ("1,234 people came.", "one thousand two hundred thirty four people came."),
        ("40,000 homes", "forty thousand homes"),
        ("It has 24 hours.", "It has twenty four hours."),
        ("Measure 250 ml.", "Measure two hundred fifty milliliters."),
    ],
    "ordinals": [
        ("the 1st, 2nd, 3rd and 21st", "the first, second, third and twenty first"),
        ("The 19th-century lighthouse", "The nineteenth century lighthouse"),
    ],
    "decimals and negative numbers": [
        ("4.2 grams", "four point two grams"),
        ("Pi is 3.14159.", "Pi is three point one four one five nine."),
        ("It fell to -12 today.", "It fell to minus twelve today."),
        ("version 2.4.1", "version two point four point one"),
    ],
    "fractions": [
        ("Add 1/2 cup.", "Add one half cup."),
        ("3/4 and 5/8 and 2/3", "three quarters and five eighths and two thirds"),
        ("2 1/2 cups", "two and a half cups"),
        ("Open 24/7, a 50/50 split", "Open twenty four seven, a fifty fifty split"),
    ],
    "percentages": [
        ("a 37% decline", "a thirty seven percent decline"),
        ("rose 8.5%, then", "rose eight point five percent, then"),
    ],
    "currency": [
        ("Costs 5 USD, EUR 10 or US$5.", "Costs five dollars, ten euros or five dollars."),
        ("$49.95", "forty nine dollars and ninety five cents"),
        ("$3.50", "three dollars and fifty cents"),
        ("$1 and $0.99", "one dollar and ninety nine cents"),
        ("£5 and £12.", "five pounds and twelve pounds."),
        ("5€ or 5 €", "five euros or five euros"),
        ("¥100", "one hundred yen"),
        ("$1.2 million and $5m", "one point two million dollars and five million dollars"),
    ],
    "clock times": [
        ("opens at 8:00.", "opens at eight o'clock."),
        ("at 9:30 a.m. sharp", "at nine thirty AM sharp"),
        ("at 9 a.m.", "at nine AM."),
        ("Open 10-11 am daily.", "Open ten to eleven AM daily."),
        ("at 7:05 and 14:00", "at seven oh five and fourteen hundred"),
        ("Meet at 9 a.m. Then go.", "Meet at nine AM. Then go."),
        ("The 10am-2pm shift", "The ten AM to two PM shift"),
        ("Mix at a 3:1 ratio, on a 16:9 screen", "Mix at a three to one ratio, on a sixteen to nine screen"),
    ],
    "dates": [
        ("Jan. 5th, 2024", "January fifth, twenty twenty four"),
        ("5 January 2024", "the fifth of January twenty twenty four"),
        ("on the 3rd of May", "on the third of May"),
        ("2024-01-05", "January fifth, twenty twenty four"),
        ("1/5/2024", "January fifth, twenty twenty four"),
        ("25/12/2023", "December twenty fifth, twenty twenty three"),
    ],
    "years": [
        ("In 1999 and 1847", "In nineteen ninety nine and eighteen forty seven"),
        ("2024 and 2005", "twenty twenty four and two thousand five"),
        ("the 1990s and the '80s", "the nineteen nineties and the eighties"),
    ],
    "phone numbers and digit runs": [
        ("Ping 192.168.1.1 now", "Ping one nine two dot one six eight dot one dot one now"),
        ("Call 555-123-4567.", "Call five five five, one two three, four five six seven."),
        ("(555) 123-4567", "five five five, one two three, four five six seven"),
        ("+44 20 7946 0958", "plus four four, two zero, seven nine four six, zero nine five eight"),
        ("1-800-555-1234", "one, eight zero zero, five five five, one two three four"),
        ("Agent 007", "Agent zero zero seven"),
    ],
    "units": [
        ("He is 5'11\" tall at 100Mbps", "He is five foot eleven tall at one hundred megabits per second"),
        ("2 kg and 1 kg", "two kilograms and one kilogram"),
        ("gusts of 70 km/h", "gusts of seventy kilometers per hour"),
        ("200 °C and -3°F", "two hundred degrees Celsius and minus three degrees Fahrenheit"),
        ("2 tbsp and 1 tsp", "two tablespoons and one teaspoon"),
        ("2 GB at 5 GHz in 30 ms", "two gigabytes at five gigahertz in thirty milliseconds"),
        ("a 12 in.", "a twelve inches."),
        ("Put 2 in the box.", "Put two in the box."),
        ("It ran 9.58s in the 1990s.", "It ran nine point five eight seconds in the nineteen nineties."),
        ("2.5M users, $3bn, 4K video", "two point five million users, three billion dollars, 4K video"),
    ],
    "roman numerals": [
        ("Henry VIII", "Henry the eighth"),
        ("World War II and Chapter IV", "World War two and Chapter four"),
        ("I think so, and Malcolm X did.", "I think so, and Malcolm X did."),
    ],
    "abbreviations and titles": [
        ("Open Mon. 9-5, Sat. 10-2.", "Open Monday nine to five, Saturday ten to two."),
        ("Mon. to Fri. Then rest.", "Monday to Friday. Then rest."),
        ("He sat. I saw the Sun. Then rain.", "He sat. I saw the Sun. Then rain."),  # not a schedule
        ("Dr. Smith met Mr. and Mrs. Jones.", "Doctor Smith met Mister and Missus Jones."),
        ("St. James St.", "Saint James Street."),
        ("on Leland St. (long since gone)", "on Leland Street (long since gone)"),
        ("Elm Dr. is closed. Visit St. Paul's.", "Elm Drive is closed. Visit Saint Paul's."),
        ("I live on Main St. The house is blue.", "I live on Main Street. The house is blue."),
        ("cats vs. dogs, e.g. Tom, i.e. him, etc.", "cats versus dogs, for example Tom, that is him, et cetera."),
        ("No. 5 and approx. 3", "number five and approximately three"),
        ("Dial 555-1234 ext. 89.", "Dial five five five, one two three four extension eighty nine."),
        ("Room 101, Apt. 4B", "Room one hundred one, apartment 4B"),
        ("Read ch. 3 of vol. 2, pp. 4-6.", "Read chapter three of volume two, pages four to six."),
        ("No. I won't.", "No. I won't."),
    ],
    "initials and acronyms": [
        ("Captain James T. Kirk met Dr. Smith.", "Captain James T Kirk met Doctor Smith."),
        ("by J. R. R. Tolkien", "by J R R Tolkien"),
        ("Dr. Smith met Captain James T. Kirk.", "Doctor Smith met Captain James T Kirk."),
        ("He read J. R. R. Tolkien!", "He read J R R Tolkien!"),
        ("the U.S. Army", "the U S Army"),
        ("It was Plan B. Then we ran.", "It was Plan B. Then we ran."),
    ],
    "symbols": [
        ("Learn C# or F# for issue #1", "Learn C sharp or F sharp for issue number one"),
        ("Fish & chips <3 cost £5.", "Fish and chips heart cost five pounds."),
        ("a < b and c > d", "a less than b and c greater than d"),
        ("2+2=4", "two plus two equals four"),
        ("Item #1 is #python", "Item number one is hash python"),
        ("R&D @ home, 5%", "R and D at home, five percent"),
    ],
    "web and e-mail addresses": [
        ("Write to bob@example.com.", "Write to bob at example dot com."),
        (
            "Visit example.com or https://www.example.org/docs?x=1.",
            "Visit example dot com or w w w dot example dot org slash docs.",
        ),
        ("e.g. 3.5 and file.py stay", "for example three point five and file.py stay"),
    ],
}


@pytest.mark.parametrize(("written", "spoken"), [pair for pairs in CLASSES.values() for pair in pairs])
def test_each_class_is_said_in_words(written, spoken):
    """Each normalization class: the written form becomes the words a person reads (American English)."""
    assert said(written) == spoken


BRITISH = [
    ("105 people", "one hundred and five people"),
    ("1/5/2024", "the first of May twenty twenty four"),
    ("2005", "two thousand and five"),
]


@pytest.mark.parametrize(("written", "spoken"), BRITISH)
def test_british_voices_read_british_english(written, spoken):
    """An en-gb voice (and espeak-ng's plain 'en', its British voice) reads day first and "and" in numbers."""
    assert said(written, "en-gb-x-rp") == said(written, "en") == spoken


def test_ambiguous_forms_are_noted_with_their_other_reading():
    """1/2 could be a date and 1/5/2024 a date in the other order: both read one way and are noted; 3/47 is not."""
    found = normalize("Add 1/2 cup on 1/5/2024, and 3/47 more.", "en-us")
    assert [(a.written, a.reading, a.other) for a in found.ambiguous] == [
        ("1/5/2024", "January fifth, twenty twenty four", "May first, twenty twenty four"),
        ("1/2", "one half", "January second"),
    ]
    assert normalize("25/12/2023", "en-us").ambiguous == ()


@pytest.mark.parametrize("language", ["de", "fr-fr", "es", "cmn", ""])
def test_other_languages_pass_through_unchanged(language):
    """Languages without rules get the text back as written, and no front end id (their caches never go stale)."""
    text = "Dr. Müller zahlt am 5.1.2024 um 8:00 genau 49,95 € & 1/2 Liter."
    assert said(text, language) is text
    assert frontend_id(language) == ""
    assert frontend_id("en-us") == f"en-us/{VERSION}" and frontend_id("en-gb") == f"en-gb/{VERSION}"


def test_text_with_nothing_to_normalize_is_the_same_string():
    """Plain prose, inline phonemes and markup-like tags come back as the very same text."""
    for text in (
        "The birch canoe slid on the smooth planks.",
        "“I’m not sure,” he said, “that it’s ‘finished’ yet.”",
        "Hello [[ hɛlˈoʊ ]] world.",
        '<speak>Hello <break time="1s"/> world.</speak>',
    ):
        assert said(text) is text


def test_inline_phonemes_and_spans_are_kept_as_they_are_meant():
    """Inside [[ ]] nothing is normalized; a verbatim span passes, a characters span is spelled."""
    assert said("Pay $5 [[ $5 ]] now.") == "Pay five dollars [[ $5 ]] now."
    spans = [Span("Code "), Span("AB12", "characters"), Span(" costs $5 ", "verbatim"), Span("or $6.")]
    assert normalize_spans(spans, "en-us").text == "Code eh B one two costs $5 or six dollars."


SPLITS = [
    ("Captain James T. Kirk met Dr. Smith. He waved.", ["Captain James T. Kirk met Dr. Smith.", "He waved."]),
    ("St. James St. is near. Go there!", ["St. James St. is near.", "Go there!"]),
    ("I live on Main St. The house is blue.", ["I live on Main St.", "The house is blue."]),
    ("It was Plan B. Then we ran.", ["It was Plan B.", "Then we ran."]),
    ("Bring fruit, e.g. apples. Now go.", ["Bring fruit, e.g. apples.", "Now go."]),
    ("On Jan. 5 we met. Fine? Yes.", ["On Jan. 5 we met.", "Fine?", "Yes."]),
    ("The U.S. Army came. It left.", ["The U.S. Army came.", "It left."]),
    ("We met James T. Kirk. He waved.", ["We met James T. Kirk.", "He waved."]),
    ("I went home. then I slept. Wait... Then go.", ["I went home. then I slept.", "Wait... Then go."]),
    ("你好。今天天气很好！我们走吧？", ["你好。", "今天天气很好！", "我们走吧？"]),
    ("「好。」他说。 然后走了。", ["「好。」", "他说。", "然后走了。"]),
    ("Dr. Smith said 你好。再见", ["Dr. Smith said 你好。", "再见"]),
]


@pytest.mark.parametrize(("text", "expected"), SPLITS)
def test_sentences_split_where_they_end_not_after_abbreviations_or_initials(text, expected):
    """split_sentences cuts after real sentence ends only."""
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("voice", "text"), [("cmn", "你好。今天天气很好！我们走吧？"), ("ja", "こんにちは。元気です。はい。")]
)
def test_cjk_sentences_end_where_espeak_ng_ends_them_without_a_space(voice, text):
    """A CJK sentence end needs no space after it: split_sentences cuts where espeak-ng itself ends the sentences
    (it had made one sentence of the whole, so a long text was cut at its commas instead)."""
    from piper.phonemize_espeak import ESPEAK_DATA_DIR, EspeakPhonemizer

    espeak = EspeakPhonemizer(ESPEAK_DATA_DIR)
    assert len(split_sentences(text)) == len(espeak.phonemize(voice, text)) == 3
    assert [espeak.phonemize(voice, s)[0] for s in split_sentences(text)] == espeak.phonemize(voice, text)


@pytest.mark.parametrize(
    ("voice", "text"),
    [
        ("cmn", "真的……？我不信。"),
        ("cmn", "他走了……。然后呢？"),
        ("cmn", "好吧——！走吧。"),
        ("cmn", "好，！走吧。"),
        ("cmn", "什么？！真的吗？？太好了！！！"),
        ("cmn", "等等。。。然后呢？好吧。"),
        ("cmn", "「他说『好。』」然后走了。"),
        ("cmn", "（他说（好。））然后走了。"),
        ("en-us", "Really...? No way."),
        ("en-us", "Wait…! Stop it."),
        ("en-us", "So—! Go now."),
    ],
)
def test_sentences_end_as_espeak_ng_ends_them_after_pauses_runs_and_closers(voice, text):
    """A mark straight after an ellipsis, a dash or a comma ends no sentence (espeak-ng reads on); a run of CJK
    end marks, or of closing marks after one, is one end: the sentences are espeak-ng's, one for one."""
    from piper.phonemize_espeak import ESPEAK_DATA_DIR, EspeakPhonemizer

    espeak = EspeakPhonemizer(ESPEAK_DATA_DIR)
    pieces = split_sentences(text)
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
    assert not any(piece[:1] in "」』）。！？" for piece in pieces), pieces  # closers and runs stay with their end
    assert [espeak.phonemize(voice, s)[0] for s in pieces] == espeak.phonemize(voice, text), pieces


@pytest.fixture(scope="module")
def phonemizer(joe):
    return Phonemizer(joe.config)


def phonemes(phonemizer, text: str, normalize: bool = True) -> list[str]:
    """The phonemes of each sentence of ``text`` as joe's front end makes them."""
    return ["".join(s.phonemes) for s in sentences(phonemizer, text, normalize=normalize)]


ISSUE_LINES = {
    "It costs $49.95 and opens at 8:00.": (
        "It costs forty-nine dollars and ninety-five cents and opens at eight o'clock."
    ),
    "I paid $3.50 for 2 kg.": "I paid three dollars and fifty cents for two kilograms.",
    "Captain James T. Kirk met Dr. Smith.": "Captain James Tee Kirk met Doctor Smith.",
    "St. James St.": "Saint James Street.",
    "Fish & chips <3 cost £5.": "Fish and chips heart cost five pounds.",
}
"""The issue's lines, and the same in words as a person writes them out."""


def test_the_issues_lines_speak_as_a_person_reads_them(phonemizer):
    """espeak-ng's phonemes: dollars and cents, o'clock, kilograms; one sentence for Kirk and Dr. Smith; Saint
    James Street; and, heart, pounds: each line gives the phonemes of its words written out."""
    for written in ISSUE_LINES:
        ours = phonemes(phonemizer, written)
        assert len(ours) == 1, (written, ours)
        assert ours == phonemes(phonemizer, said(written), normalize=False)
    first = phonemes(phonemizer, "It costs $49.95 and opens at 8:00.")[0]
    assert "dˈɑːlɚz" in first and "sˈɛnts" in first and "əklˈɑːk" in first and "pɔɪnt" not in first
    assert phonemes(phonemizer, "St. James St.") == ["".join(s) for s in phonemizer.phonemize("Saint James Street.")]
    fish = phonemes(phonemizer, "Fish & chips <3 cost £5.")[0]
    assert "ænd" in fish and "hˈɑːɹt" in fish and "fˈaɪv pˈaʊndz" in fish
    literal = phonemes(phonemizer, "Captain James T. Kirk met Dr. Smith.", normalize=False)
    assert len(literal) == 3  # as written, espeak-ng breaks the name in three (what the issue heard)


def test_the_issues_lines_last_as_long_as_their_words(engine):
    """Each line's audio (joe, ONNX, noise 0) lasts as long as the same line in words: within 3%, well inside the
    issue's 15% (read as written, the first three were 5-13% off: "dollar ... point nine five", three sentences
    with pauses for Kirk)."""
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0)

    def seconds(text: str) -> float:
        return sum(len(c.audio) for c in engine.synthesize(text, options)) / engine.sample_rate

    for written, words in ISSUE_LINES.items():
        assert seconds(written) == pytest.approx(seconds(words), rel=0.03), written


def test_numbers_in_words_are_read_as_espeak_reads_digits(phonemizer):
    """The words for plain numbers give espeak-ng's own phonemes for the digits (no hyphenated compounds, which
    espeak-ng runs together as one word: "forty-nine")."""
    text = "There were 49 cats, 21 dogs and 40,000 birds."
    assert phonemes(phonemizer, text) == phonemes(phonemizer, text, normalize=False)


def test_a_voice_of_another_language_phonemizes_its_text_as_written(joe, piper_voice):
    """A German espeak voice: the front end passes the text through, so the phonemes are espeak-ng's for it."""
    from piper import PiperVoice
    from piper.config import PiperConfig

    raw = {**joe.config.raw, "espeak": {"voice": "de"}}
    german = dataclasses.replace(joe.config, espeak_voice="de", raw=raw)
    text = "Dr. Müller zahlt 5 € für 2 kg."
    reference = PiperVoice(session=None, config=PiperConfig.from_dict(german.piper_document()))
    ours = [s.phoneme_ids for s in sentences(Phonemizer(german), text)]
    assert ours == [reference.phonemes_to_ids(p) for p in reference.phonemize(text) if p]


def test_say_speaks_through_the_front_end_and_no_normalize_reads_as_written(engine, tmp_path):
    """voice-studio say (run as a user runs it): the line's audio is the engine's for the line in words;
    --no-normalize gives Piper's literal reading (the engine with normalize off)."""
    import subprocess
    import sys

    import soundfile

    text, words = "I paid $3.50 for 2 kg.", "I paid three dollars and fifty cents for two kilograms."
    command = [sys.executable, "-m", "studio", "say", "--noise-scale", "0", "--noise-w", "0", "--quiet", text]
    for name, extra in (("said", []), ("literal", ["--no-normalize"])):
        result = subprocess.run([*command, *extra, "-o", str(tmp_path / f"{name}.wav")], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    spoken, literal = (len(soundfile.read(tmp_path / f"{name}.wav")[0]) for name in ("said", "literal"))

    def samples(line: str, normalize: bool = True) -> int:
        options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, normalize=normalize)
        return sum(len(c.audio) for c in engine.synthesize(line, options))

    assert spoken == samples(words) and literal == samples(text, normalize=False) != spoken


def test_a_speaking_rate_counts_the_phonemes_of_the_text_as_spoken(phonemizer):
    """Compare's speaking rate counts what the voice says: "2 kg at 9 a.m." as many phonemes as its words."""
    from trainer.evaluate.measures import count_phonemes

    assert count_phonemes(phonemizer, "Add 2 kg at 9 a.m.") == count_phonemes(
        phonemizer, "Add two kilograms at nine AM."
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("It is done. 42 is the answer.", "It is done. Forty two is the answer."),
        ("Hi there. $5 is the price.", "Hi there. Five dollars is the price."),
        ('He said "ok." 5 more.', 'He said "ok." Five more.'),
        ("Wait... 42 then.", "Wait... forty two then."),
        ("I have 42 apples.", "I have forty two apples."),
    ],
)
def test_a_number_that_opens_a_sentence_is_said_from_a_capital(text, said):
    """A sentence that begins with a number or a symbol still begins one once said as words (espeak-ng ends a
    sentence at a period only before a capital or a digit, as Piper reading the digits does); not after an
    ellipsis nor within a sentence."""
    assert normalize(text, "en-us").text == said


def test_the_sentence_before_a_number_ends_as_piper_ends_it(joe):
    """``Done. 42 is it.``: two sentences, as piper-tts reads the digits (not "done forty two" run on)."""
    assert len(list(sentences(Phonemizer(joe.config), "It is done. 42 is the answer."))) == 2
