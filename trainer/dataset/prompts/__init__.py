"""Recording prompts chosen for coverage (no Qt): what a person reads in the booth, or a teacher voice says.

``corpus`` reads the lines (the studio's own English set, ``assets/prompts_en.txt``, CC0, or a person's text file,
one prompt a line); ``units`` turns a line into the phonemes and phoneme pairs the voice's phonemizer says for it,
after the text front end; ``selection`` picks the next prompts greedily for what is still missing and counts the
coverage; ``guidance`` estimates the minutes and says how much to record, with its sources.
"""
