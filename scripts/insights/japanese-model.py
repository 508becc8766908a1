#!/usr/bin/env python3
"""Writes the review-insights processor's Japanese sentiment model
(plugins/review-insights/models/ja.tsv) from the classifier PyPI's `asari`
0.2.0 ships (MIT; `asari/data/pipeline.onnx`): TF-IDF over word unigrams and
bigrams, L2-normalised, then five calibrated linear SVMs whose probabilities
are averaged. The package does not say what it was trained on.

    python3 -m pip download --no-deps --dest DIR asari==0.2.0
    unzip -q DIR/asari-0.2.0-py3-none-any.whl -d DIR
    scripts/insights/japanese-model.py DIR/asari/data/pipeline.onnx

It needs PyPI's `onnx` (1.23.2 was used) to read the pipeline. asari splits
words with janome, a morphological analyser with a dictionary of several MB;
the plugin instead takes, at each character, the longest word of the model's
vocabulary starting there (see src/model.rs), so the table keeps every
unigram, the dictionary of that search, and the BIGRAMS bigrams with the
largest mean weight times IDF.

The five SVMs are folded into one: their weights, intercepts and sigmoid
calibrations are each averaged. The table's first lines give the intercept
(`#intercept`) and the calibration (`#a`, `#b`: the probability of positive
is 1 / (1 + exp(a·f + b)) for the decision value f); then each feature, its
weight and its IDF, tab-separated, a bigram's two words joined by a space.
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

OUT = Path(__file__).resolve().parents[2] / "plugins/review-insights/models/ja.tsv"
BIGRAMS = 20000
CLASSIFIERS = [f"LinearClassifier{i}" for i in ["", "1", "2", "3", "4"]]
CALIBRATIONS = [("a", "b"), ("a1", "b1"), ("a2", "b2"), ("a3", "b3"), ("a4", "b4")]


def attributes(node):
    return {a.name: a for a in node.attribute}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    model = onnx.load(sys.argv[1])
    constants = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    nodes = {n.name: n for n in model.graph.node}
    tfidf = attributes(nodes["TfIdfVectorizer"])
    pool = [s.decode("utf-8") for s in tfidf["pool_strings"].strings]
    index = list(tfidf["ngram_indexes"].ints)
    unigrams = list(tfidf["ngram_counts"].ints)[1]
    idf = constants["idfcst"]

    weights, intercepts = [], []
    for name in CLASSIFIERS:
        a = attributes(nodes[name])
        # Two rows, negative then positive; the positive one is the decision.
        weights.append(np.array(a["coefficients"].floats).reshape(2, -1)[1])
        intercepts.append(list(a["intercepts"].floats)[1])
    weight = np.mean(weights, axis=0)
    slope = np.mean([float(constants[a]) for a, _ in CALIBRATIONS])
    offset = np.mean([float(constants[b]) for _, b in CALIBRATIONS])

    rows = [(pool[i], index[i]) for i in range(unigrams)]
    bigrams = [
        (f"{pool[k]} {pool[k + 1]}", index[unigrams + j])
        for j, k in enumerate(range(unigrams, len(pool), 2))
    ]
    bigrams.sort(key=lambda row: -abs(weight[row[1]]) * idf[row[1]])
    rows += bigrams[:BIGRAMS]
    for feature, _ in rows:
        if "\t" in feature or "\n" in feature:
            sys.exit(f"a feature holds a tab or a line break: {feature!r}")

    with OUT.open("w", encoding="utf-8") as out:
        out.write(f"#intercept\t{np.mean(intercepts):.6f}\n")
        out.write(f"#a\t{slope:.6f}\n#b\t{offset:.6f}\n")
        for feature, i in rows:
            out.write(f"{feature}\t{weight[i]:.4g}\t{idf[i]:.4g}\n")
    print(f"{OUT}: {unigrams} unigrams, {min(BIGRAMS, len(bigrams))} of {len(bigrams)} bigrams")


if __name__ == "__main__":
    main()
