#!/usr/bin/env python3
"""Builds the language-identification evaluation set from Debian's package
descriptions and their DDTP translations (fetch-ddtp.sh fetches them).

One sample is one paragraph of a long description (its lines joined), at
least 20 characters, without bullet or indented lines, once per language.
Paragraphs are grouped by the English original they translate (the
Description-md5 field), and a group goes wholly to `dev` (about a fifth) or
to `test`, so no translation of a test paragraph is in `dev`. At most 1,000
samples per language and split, chosen by hash, so the set is the same on
every machine. `short` holds each sample's first sentence cut to at most 80
characters (40 in Japanese, Chinese and Korean), like a short review.

    build-set.py TXT_DIR OUT_DIR   ->  OUT_DIR/{dev,test}{,-short}.tsv
    columns: label  group  text
"""
import collections
import glob
import hashlib
import os
import re
import sys

CAP = 1000
TAGS = {"zh_CN": "zh", "pt_BR": "pt"}
CJK = ("ja", "zh", "ko")
BULLET = re.compile(r"^\s*([*+\-o•]|\d+[.)])\s")


def records(path):
    md5, field, lines = None, None, []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            raw = raw.rstrip("\n")
            if not raw:
                if field:
                    yield md5, lines
                md5, field, lines = None, None, []
            elif raw.startswith("Description-md5: "):
                md5 = raw[len("Description-md5: "):]
            elif raw.startswith("Description-"):
                field = True
                lines = [raw.split(": ", 1)[1] if ": " in raw else ""]
            elif raw.startswith(" ") and field:
                lines.append(raw[1:])
    if field:
        yield md5, lines


def paragraphs(lines):
    current = []
    for line in lines[1:]:
        if line.strip() == ".":
            if current:
                yield current
            current = []
        else:
            current.append(line)
    if current:
        yield current


def digest(text):
    return hashlib.sha1(text.encode()).hexdigest()


def shorten(text, label):
    match = re.match(r"(.+?[.!?。！？])(\s|$)", text)
    s = match.group(1) if match else text
    limit = 40 if label in CJK else 80
    if len(s) > limit:
        s = s[:limit]
        if label not in CJK and " " in s:
            s = s.rsplit(" ", 1)[0]
    return s.strip()


def main(txt_dir, out_dir):
    rows = []
    for path in sorted(glob.glob(os.path.join(txt_dir, "Translation-*"))):
        language = path.rsplit("Translation-", 1)[1]
        label = TAGS.get(language, language)
        seen = set()
        for md5, lines in records(path):
            for para in paragraphs(lines):
                if any(BULLET.match(l) or l.startswith("  ") for l in para):
                    continue
                joiner = "" if label in CJK else " "
                text = joiner.join(l.strip() for l in para).strip()
                if len(text) < 20 or digest(text) in seen:
                    continue
                seen.add(digest(text))
                rows.append((label, md5, text))
    splits = {"dev": collections.defaultdict(list), "test": collections.defaultdict(list)}
    for label, group, text in sorted(rows, key=lambda r: digest(r[1] + r[2])):
        split = "dev" if int(digest(group), 16) % 10 < 2 else "test"
        if len(splits[split][label]) < CAP:
            splits[split][label].append((label, group, text))
    os.makedirs(out_dir, exist_ok=True)
    for split, by_label in splits.items():
        with open(os.path.join(out_dir, f"{split}.tsv"), "w", encoding="utf-8") as full, open(
            os.path.join(out_dir, f"{split}-short.tsv"), "w", encoding="utf-8"
        ) as short:
            for label in sorted(by_label):
                for label_, group, text in by_label[label]:
                    full.write(f"{label_}\t{group}\t{text}\n")
                    cut = shorten(text, label_)
                    if len(cut) >= 20:
                        short.write(f"{label_}\t{group}\t{cut}\n")
        counts = {label: len(v) for label, v in sorted(by_label.items())}
        print(f"{split}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
