#!/usr/bin/env bash
# Contract test: schemathesis (pinned in scripts/contract/requirements.txt,
# installed into the virtual environment `contract`: scripts/python-venv.sh)
# generates requests from the server's own /openapi.json and checks every
# answer against it: response schemas, documented statuses and headers,
# content types, negative inputs refused, authentication honoured, and no 5xx
# but the documented 502 of a page that is not recorded.
#
# Two passes, each on a fresh real server (target/release/gleaner, every staged
# plugin, the recorded upstream traffic as `make demo` replays it, a free
# loopback port):
#   open    no API key configured (the loopback default), CONTRACT_EXAMPLES examples
#   keyed   an API key required and sent; schemathesis also drops it and expects 401
#
#   CONTRACT_EXAMPLES   examples per operation in the fuzzing phase (default 100;
#                       the keyed pass takes a quarter)
#   CONTRACT_SEED       the generator's seed (default 1, so runs repeat)
#   CONTRACT_WORKERS    concurrent schemathesis workers (default 1: hypothesis parses
#                       lambdas' source with Python's ast module, which on CPython 3.11
#                       keeps one recursion counter for all threads, so two workers
#                       fail at random with "AST constructor recursion depth mismatch";
#                       one worker takes the same time here, about 20 s a pass)
#
# Results: target/contract/<pass>/ (junit XML, server.log, schemathesis.log).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="$(scripts/python-venv.sh --dir contract)"
OUT=target/contract
REQUIREMENTS=scripts/contract/requirements.txt
EXAMPLES="${CONTRACT_EXAMPLES:-100}"
SEED="${CONTRACT_SEED:-1}"
WORKERS="${CONTRACT_WORKERS:-1}"
BINARY=target/release/gleaner
KEY=contract-test-key

test -x "$BINARY" || { echo "contract: $BINARY is missing; build it with 'make host'" >&2; exit 2; }
ls target/plugins/*.toml >/dev/null 2>&1 || { echo "contract: no plugin staged in target/plugins; run 'make plugins'" >&2; exit 2; }

# The virtual environment, (re)built whenever the pinned requirements change.
scripts/python-venv.sh contract "$REQUIREMENTS" schemathesis

rm -rf "$OUT"
mkdir -p "$OUT"
python3 scripts/contract/config.py scripts/contract/schemathesis.toml "$OUT/schemathesis.toml"

SERVER=
stop_server() {
    if [[ -n "$SERVER" ]]; then
        kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
        SERVER=
    fi
}
trap stop_server EXIT

# start_server DIR [API_KEY]: starts the server, logging to DIR/server.log; sets
# SERVER and BASE once every plugin has loaded (/healthz says "ok").
start_server() {
    local dir="$1" key="${2:-}" port
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    BASE="http://127.0.0.1:$port"
    env -u GLEANER_API_KEYS -u GLEANER_ADMIN_KEYS -u GLEANER_CONFIG \
        ${key:+GLEANER_API_KEYS="$key"} \
        GLEANER_ADDR="127.0.0.1:$port" \
        GLEANER_REPLAY="plugins:tests/fixtures/har" \
        GLEANER_WATCH=false \
        GLEANER_LOG_FORMAT=json \
        GLEANER_DATA_DIR="$OUT/data" \
        "$BINARY" >"$dir/server.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 1 600); do
        if ! kill -0 "$SERVER" 2>/dev/null; then
            echo "contract: the server exited; its log:" >&2
            cat "$dir/server.log" >&2
            exit 1
        fi
        if python3 - "$BASE/healthz" <<'PY' 2>/dev/null; then return; fi
import json, sys, urllib.request
sys.exit(0 if json.load(urllib.request.urlopen(sys.argv[1], timeout=2))["status"] == "ok" else 1)
PY
        sleep 0.2
    done
    echo "contract: the server did not load its plugins within 120 s; its log is $dir/server.log" >&2
    exit 1
}

# What the server answered, by status, from its request log.
summarise() {
    python3 - "$1" <<'PY'
import collections, json, sys
statuses = collections.Counter()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try:
        fields = json.loads(line).get("fields", {})
    except ValueError:
        continue
    if fields.get("message") == "served":
        statuses[fields.get("status")] += 1
print("contract: the server answered", sum(statuses.values()), "plugin-route requests:",
      ", ".join(f"{n} x {s}" for s, n in sorted(statuses.items(), key=lambda i: str(i[0]))))
PY
}

# run_pass NAME EXAMPLES [API_KEY]: one server, one schemathesis run; every
# check runs (schemathesis enables all by default; the config file adjusts a
# few for documented behaviour and says why).
FAILED=()
run_pass() {
    local name="$1" examples="$2" key="${3:-}" dir="$OUT/$1" status
    mkdir -p "$dir"
    start_server "$dir" "$key"
    echo "contract: pass '$name' against $BASE ($examples examples per operation, seed $SEED)"
    set +e
    "$VENV/bin/schemathesis" \
        --config-file "$OUT/schemathesis.toml" \
        run "$BASE/openapi.json" \
        ${key:+--header "x-api-key: $key"} \
        --max-examples "$examples" \
        --seed "$SEED" \
        --workers "$WORKERS" \
        --continue-on-failure \
        --report junit --report-dir "$dir" \
        2>&1 | tee "$dir/schemathesis.log"
    status=${PIPESTATUS[0]}
    set -e
    stop_server
    summarise "$dir/server.log"
    if [[ "$status" != 0 ]]; then FAILED+=("$name"); fi
}

run_pass open "$EXAMPLES"
run_pass keyed "$(( (EXAMPLES + 3) / 4 ))" "$KEY"

if (( ${#FAILED[@]} )); then
    echo "contract: FAILED in pass(es): ${FAILED[*]}; see target/contract/<pass>/schemathesis.log" >&2
    exit 1
fi
echo "contract: both passes conform to /openapi.json"
