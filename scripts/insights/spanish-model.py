#!/usr/bin/env python3
"""Writes the review-insights processor's Spanish sentiment model
(plugins/review-insights/models/es.tsv) from the one PyPI's
`sentiment-analysis-spanish` 0.0.25 ships (MIT): a multinomial naive Bayes
classifier over the counts of 5,000 word n-grams (one to three words),
trained by its authors on about 800,000 star-rated Spanish reviews of
restaurants, sports goods, travel, films and auction listings.

    python3 -m pip download --no-deps --dest DIR sentiment-analysis-spanish==0.0.25
    unzip DIR/sentiment_analysis_spanish-0.0.25-py3-none-any.whl -d DIR/wheel
    scripts/insights/spanish-model.py DIR/wheel

It needs scikit-learn to read the pickled model (`make sentiment-model`'s
virtualenv has it). A naive Bayes classifier's log-odds are linear in the
counts, so the table holds, per n-gram, the log of its probability given a
positive review less that given a negative one, and on a `#bias` line the log
of the positive class's prior odds. No text the model was trained on is kept.
"""
import bz2
import pickle
import sys
import warnings
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "plugins/review-insights/models/es.tsv"


def load(path):
    with bz2.BZ2File(path, "rb") as f:
        return pickle.load(f)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    saved = Path(sys.argv[1]) / "sentiment_analysis_spanish/saved_model"
    # Pickled by an older scikit-learn: it says so, and the attributes read
    # here are the same.
    warnings.simplefilter("ignore")
    vectorizer = load(saved / "ngram_vectorized_compressed.pbz2")
    classifier = load(saved / "classifier_naive_bayes_compressed.pbz2")
    assert list(classifier.classes_) == [0, 1], classifier.classes_
    assert vectorizer.ngram_range == (1, 3) and vectorizer.lowercase
    assert vectorizer.token_pattern == r"(?u)\b\w\w+\b" and not vectorizer.binary
    log_prob = classifier.feature_log_prob_
    bias = classifier.class_log_prior_[1] - classifier.class_log_prior_[0]
    rows = [f"#bias\t{bias:.4f}\n"]
    for feature, index in sorted(vectorizer.vocabulary_.items()):
        weight = log_prob[1, index] - log_prob[0, index]
        rows.append(f"{feature}\t{weight:.4f}\n")
    OUT.write_text("".join(rows), encoding="utf-8")
    # The package's own sentiment() is the probability of class 1: check
    # that class 1 is the positive one.
    good, bad = vectorizer.transform(["excelente, muy recomendable", "horrible, no funciona"])
    assert classifier.predict_proba(good)[0][1] > 0.5 > classifier.predict_proba(bad)[0][1]
    print(f"es: {len(rows) - 1} features, bias {bias:.4f}")


if __name__ == "__main__":
    main()
