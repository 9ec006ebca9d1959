#!/usr/bin/env bash
# `make demo-engine`: the socket proxy in front of a real Docker engine, and a consumer that reaches the
# engine only through it. Uses the engine of DOCKER_HOST (unix://...) or /var/run/docker.sock; the proxy
# listens on 127.0.0.1 only and is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

socket=${DOCKER_HOST:-unix:///var/run/docker.sock}
socket=${socket#unix://}
if [[ ! -S "$socket" ]] || ! docker -H "unix://$socket" version >/dev/null 2>&1; then
  echo "demo-engine: no Docker engine answers on $socket; start one or set DOCKER_HOST=unix:///path/docker.sock" >&2
  exit 7
fi

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
work=$(mktemp -d "${TMPDIR:-/tmp}/vault-demo-engine-XXXXXX")
proxy_pid=
cleanup() {
  [[ -n "$proxy_pid" ]] && kill -TERM "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
consumer() { printf '$ DOCKER_HOST=tcp://127.0.0.1:%s docker %s\n' "$port" "$*" >&2; DOCKER_HOST="tcp://127.0.0.1:$port" docker "$@"; }

step "1. vault proxy serve: default rules, engine $socket, listening on 127.0.0.1:$port"
node bin/run.js proxy serve --backend-addr "unix://$socket" --frontend-addr "tcp://127.0.0.1:$port" --log-level 6 \
  2>"$work/proxy.log" &
proxy_pid=$!
for _ in $(seq 1 100); do
  node bin/run.js proxy healthcheck --frontend-addr "tcp://127.0.0.1:$port" >/dev/null 2>&1 && break
  sleep 0.1
done
node bin/run.js proxy healthcheck --frontend-addr "tcp://127.0.0.1:$port"

step "2. A consumer reads through the proxy (allowed)"
consumer version --format 'engine {{.Server.Version}}, API {{.Server.APIVersion}}'
consumer ps --all --format '{{.Names}}\t{{.Status}}'

step "3. ... and is refused what the rules do not allow"
consumer rm --force vault-demo-nonexistent || true
consumer volume rm vault-demo-nonexistent || true
consumer network create vault-demo-net || true

step "4. The proxy's log: one line per request, refusals at warning level"
sed 's/^/  proxy: /' "$work/proxy.log" >&2
