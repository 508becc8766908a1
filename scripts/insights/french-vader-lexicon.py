#!/usr/bin/env python3
"""Writes review-insights' second French lexicon
(plugins/review-insights/lexicons/fr-vader.tsv: word, tab, polarity from -1
to 1) from VADER's lexicon translated into French by hand, as PyPI's
`vaderSentiment-fr` 1.3.4 ships it (MIT; `vaderSentiment_fr/fr_lexicon.txt`,
one `word->rating` per line, ratings from -4 to 4, divided by 4 here).

    python3 -m pip download --no-deps --no-binary :all: --dest DIR vaderSentiment-fr==1.3.4
    tar xzf DIR/vaderSentiment_fr-1.3.4.tar.gz -C DIR
    scripts/insights/french-vader-lexicon.py DIR/vaderSentiment_fr-1.3.4

Keys are lowercased; entries of more than one word and neutral ones are left
out, as `lexicons.py` writes the others.
"""
import sys
from collections import defaultdict
from pathlib import Path

from lexicons import write


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = Path(sys.argv[1]) / "vaderSentiment_fr/fr_lexicon.txt"
    found = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        word, arrow, rating = line.rpartition("->")
        if arrow and word.strip():
            found[word.strip().lower()].append(float(rating) / 4.0)
    write("fr-vader", found)


if __name__ == "__main__":
    main()
