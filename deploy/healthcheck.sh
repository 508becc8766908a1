#!/usr/bin/env bash
# Asks the Gleaner server in this container for GET /healthz, with bash alone
# (no curl in the image): exit 0 when it is healthy, non-zero otherwise, with
# the reason on stderr. The image installs it as /usr/local/bin/gleaner-healthcheck.
#
#   gleaner-healthcheck           alive: the server answers /healthz, with 200,
#                                 or 503 when no plugin is loaded (a restart
#                                 would not load one; an upload can)
#   gleaner-healthcheck --ready   ready: it answers 200 and no plugin is still loading
#
# The address is GLEANER_ADDR's (default 127.0.0.1:8080); a wildcard listen
# address (0.0.0.0, [::]) is asked on loopback.
set -uo pipefail

ready=false
case "${1:-}" in
    "") ;;
    --ready) ready=true ;;
    *) echo "usage: gleaner-healthcheck [--ready]" >&2; exit 2 ;;
esac

addr="${GLEANER_ADDR:-127.0.0.1:8080}"
port="${addr##*:}"
host="${addr%:*}"
host="${host#[}"
host="${host%]}"
case "$host" in
    "" | 0.0.0.0) host=127.0.0.1 ;;
    "::") host=::1 ;;
esac

if ! { exec 3<>"/dev/tcp/${host}/${port}"; } 2>/dev/null; then
    echo "unhealthy: nothing accepts connections on ${host} port ${port} (GLEANER_ADDR=${addr})" >&2
    exit 1
fi
printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n' "$host" >&3
# HTTP/1.0: the server closes the connection after its answer.
response="$(timeout 5 cat <&3)"
exec 3<&-

status_line="${response%%$'\r'*}"
case "$status_line" in
    "HTTP/1."?" 200"*) ;;
    "HTTP/1."?" 503"*)
        if $ready; then
            echo "not ready: no plugin is loaded: ${response#*$'\r\n\r\n'}" >&2
            exit 1
        fi
        ;;
    "") echo "unhealthy: ${host}:${port} closed the connection without an answer to GET /healthz" >&2; exit 1 ;;
    *) echo "unhealthy: GET /healthz answered \"${status_line}\"" >&2; exit 1 ;;
esac

if $ready; then
    body="${response#*$'\r\n\r\n'}"
    if [[ "$body" != *'"status":"ok"'* ]]; then
        echo "not ready: plugins are still loading: ${body}" >&2
        exit 1
    fi
fi
exit 0
