"""Segments every text of a corpus with pySBD and prints, as JSON, the time of
each pass over the corpus and the sentences it found.

Usage: pysbd_segment.py CORPUS_JSON MIN_SECONDS

CORPUS_JSON holds a JSON array of strings. The corpus is segmented once for
the sentences (untimed), then in whole passes, each timed, until MIN_SECONDS
have passed (and at least 3 passes).
"""

import json
import platform
import sys
import time

import pysbd


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        texts = json.load(f)
    min_seconds = float(sys.argv[2])
    segmenter = pysbd.Segmenter(language="en", clean=False)
    sentences = [[s.strip() for s in segmenter.segment(t) if s.strip()] for t in texts]
    rounds = []
    started = time.perf_counter()
    while len(rounds) < 3 or time.perf_counter() - started < min_seconds:
        t = time.perf_counter()
        for text in texts:
            segmenter.segment(text)
        rounds.append(time.perf_counter() - t)
    print(
        json.dumps(
            {
                "pysbd": getattr(pysbd, "__version__", "?"),
                "python": platform.python_version(),
                "round_seconds": rounds,
                "sentences": sentences,
            }
        )
    )


if __name__ == "__main__":
    main()
