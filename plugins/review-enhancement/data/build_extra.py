"""Builds extra.txt: lower-case words of SCOWL's American English list
(Debian package `wamerican`, /usr/share/dict/american-english) that the
frequency list behind words.txt lacks among its TOP words, so that American
spellings (`favorite`, `skeptical`) and rarer words are never "corrected".

Usage: python3 build_extra.py american-english frequency_dictionary_en_82_765.txt > extra.txt

Format: alphabetical, front-coded as in words.txt but without a band: one
digit ('0' + shared leading characters with the previous word, at most 9),
then the rest of the word; every RESTART-th word whole.
"""

import sys

from build_words import RESTART, TOP

with open(sys.argv[2], encoding="utf-8") as f:
    listed = {line.split()[0] for _, line in zip(range(TOP), f)}
with open(sys.argv[1], encoding="utf-8") as f:
    words = sorted(
        {
            w.strip()
            for w in f
            if w.strip().isascii() and w.strip().isalpha() and w.strip().islower()
        }
        - listed
    )

out = []
prev = ""
for i, word in enumerate(words):
    k = 0
    while i % RESTART and k < min(len(word), len(prev), 9) and word[k] == prev[k]:
        k += 1
    out.append(f"{k}{word[k:]}")
    prev = word
sys.stdout.write("\n".join(out) + "\n")
