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
  GLEANER_TEST_PLUGIN=$n cargo test --release --workspace --test tests -- plugin_replay --nocapture 2>&1 | grep -E '^(ok |test result)|FAILED|panicked' 
done
end=$(date +%s%N)
echo "template plugins: generated, built, served and tested green in $(( (end - start) / 1000000 )) ms"
cargo clippy --release --target wasm32-wasip2 -p plugin-template-check-source -p plugin-template-check-processor -- -D warnings
