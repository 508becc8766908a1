"""Builds words.txt from SymSpell's English frequency dictionary.

Usage: python3 build_words.py frequency_dictionary_en_82_765.txt > words.txt

Keeps the TOP most frequent words, in alphabetical order, front-coded: each
line is one digit giving how many leading characters the word shares with the
previous one ('0' + n, at most 9; 0 for every RESTART-th word), then the rest of the word, then one
character giving its frequency band: chr(BAND_BASE + band - MIN_BAND), where
band = floor(4 * log2(count)) (a quarter of a power of two of its count in
the source list). Bands below MIN_BAND do not occur with TOP = 50000.
"""

import math
import sys

TOP = 50000
# Every RESTART-th word is written whole, so a reader can binary-search.
RESTART = 16
MIN_BAND = 60
BAND_BASE = ord("!")

def main():
    words = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for n, line in enumerate(f):
            if n >= TOP:
                break
            word, count = line.split()
            if word.isascii() and word.isalpha() and word.islower():
                words.append((word, int(4 * math.log2(int(count)))))

    out = []
    prev = ""
    for i, (word, band) in enumerate(sorted(words)):
        k = 0
        while i % RESTART and k < min(len(word), len(prev), 9) and word[k] == prev[k]:
            k += 1
        out.append(f"{k}{word[k:]}{chr(BAND_BASE + band - MIN_BAND)}")
        prev = word
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
