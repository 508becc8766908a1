#!/usr/bin/env bash
# Generates a source and a processor from the templates, builds them with the
# other plugins, serves them through the real server and runs their replay cases,
# then removes them. Prints the time from `make new-plugin` to a green test.
set -euo pipefail
cd "$(dirname "$0")/../.."
names=(template-check-source template-check-processor)
lock_backup=$(mktemp)
cp Cargo.lock "$lock_backup"
cleanup() {
  cp "$lock_backup" Cargo.lock
  for n in "${names[@]}"; do
    rm -rf "plugins/$n" "target/plugins/$n.toml" "target/plugins/$n.wasm" "target/plugins/$n".*.cwasm
  done
}
trap cleanup EXIT
cleanup
start=$(date +%s%N)
make --no-print-directory new-plugin NAME=template-check-source KIND=source
make --no-print-directory new-plugin NAME=template-check-processor KIND=processor
make --no-print-directory plugins
for n in "${names[@]}"; do
  GLEANER_TEST_PLUGIN=$n cargo test --release --workspace --test tests -- plugin_replay::every --nocapture 2>&1 | grep -E '^(ok |test result)|FAILED|panicked' 
done
end=$(date +%s%N)
echo "template plugins: generated, built, served and tested green in $(( (end - start) / 1000000 )) ms"
cargo clippy --release --target wasm32-wasip2 -p plugin-template-check-source -p plugin-template-check-processor -- -D warnings

# The same templates as standalone crates outside the workspace (the SDK by
# path), built and staged by `gleaner plugin build` into the directory of a
# running server, which swaps each in without a restart.
gleaner=./target/release/gleaner
outside=$(mktemp -d)
trap 'cleanup; kill "${server:-0}" 2>/dev/null; rm -rf "$outside"' EXIT
start=$(date +%s%N)
$gleaner plugin new outside-source --kind source --dir "$outside/outside-source"
$gleaner plugin new outside-processor --kind processor --dir "$outside/outside-processor"
mkdir -p "$outside/plugins"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
GLEANER_LOG=warn GLEANER_ADDR=127.0.0.1:$port GLEANER_PLUGIN_DIR="$outside/plugins" \
  GLEANER_DATA_DIR="$outside/data" $gleaner serve --replay "$outside/outside-source/tests/replay.har" &
server=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")
[[ "$code" == 503 ]] || { echo "an empty plugin directory's /healthz answered $code, not 503" >&2; exit 1; }
for n in outside-source outside-processor; do
  $gleaner plugin build "$outside/$n" --plugin-dir "$outside/plugins" --target-dir target
done
for _ in $(seq 100); do
  curl -s "http://127.0.0.1:$port/healthz" | grep -q '"plugins":2' && break; sleep 0.1
done
reviews=$(curl -s -X POST "http://127.0.0.1:$port/outside-source/reviews" \
  -H 'content-type: application/json' -d '{"query": "https://reviews.example.com/acme-dental"}' \
  | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["all_reviews"]))')
[[ "$reviews" == 3 ]] || { echo "the standalone source served $reviews reviews, not 3" >&2; exit 1; }
sentences=$(curl -s -X POST "http://127.0.0.1:$port/features/outside-processor" \
  -H 'content-type: application/json' -d '{"review_text": "Dr. Ortiz was gentle. Booked my next visit already!"}')
echo "$sentences" | grep -q '"sentences":2' || { echo "the standalone processor answered: $sentences" >&2; exit 1; }
end=$(date +%s%N)
echo "standalone plugins: created, built outside the workspace, swapped into a running server and answering in $(( (end - start) / 1000000 )) ms"
# Built outside the workspace, they still link the workspace's plugin stack.
GLEANER_STACK_CHECK_DIR="$outside/plugins" cargo test --release --workspace --test tests -- guest_stack:: 2>&1 \
  | grep -E '^(test |test result)|FAILED|panicked'

