#!/usr/bin/env bash
# `make demo`: the whole story without a Docker engine. An embedded vault (SQLite in a temporary
# directory) gets a project, a deployment identity and the seed's base secrets; the example stack is
# checked and rendered with them (values masked); the socket proxy's decisions are shown for a handful of
# requests under the default rules; then the vault stops and the temporary directory is removed.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/vault-demo-XXXXXX")
stack_file=examples/stack/compose.yaml
server_pid=
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

vault() { node bin/run.js "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
show() { printf '$ vault %s\n' "$*" >&2; vault "$@"; }

step "1. Start an embedded vault (vault server --dev, SQLite under $work)"
mkdir -p "$work/stack"
# The console's one-time admin password: 24 random characters from vault pwgen (node:crypto), held in this
# shell and handed to the server in its environment only (never on a command line, never in a file).
admin_password=$(vault pwgen --length 24 --charset alnum)
VAULT_ADMIN_PASSWORD="$admin_password" node bin/run.js server --dev --data-dir "$work/vault" --port 0 --init-project homelab --write-env "$work/stack" \
  2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 150); do
  grep -q 'vault server listening on' "$work/server.log" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "demo: the vault server did not start" >&2; exit 1; }
  sleep 0.2
done
grep -q 'vault server listening on' "$work/server.log" || { cat "$work/server.log" >&2; echo "demo: timed out" >&2; exit 1; }
sed 's/^/  server: /' "$work/server.log" >&2
printf '  the stack .vault/credentials (mode %s; compose never reads it) holds VAULT_DOMAIN, VAULT_PROJECT_ID, VAULT_CLIENT_ID, VAULT_CLIENT_SECRET\n' \
  "$(stat -c %a "$work/stack/.vault/credentials")" >&2
export VAULT_STACK_DIR="$work/stack"
console_url=$(sed -n 's/^console: //p' "$work/server.log")
printf '  web console: %s  (user admin, one-time password %s; valid while the demo runs)\n' "$console_url" "$admin_password" >&2

step "2. Fill the dev environment with the seed's base secrets (generated passwords and keys, given inputs)"
install -m 600 /dev/null "$work/inputs.env"
printf 'OBJSTORE_ACCOUNT_KEY=%s\n' "$(vault pwgen --length 31)" >"$work/inputs.env"
show secrets init --env dev --values-file "$work/inputs.env" \
  --data-dir /srv/homelab --stack-project-name homelab --domainname example.com \
  --gateway-domain gateway.example.com --gateway-trusted-ips 10.0.0.0/8,192.168.0.0/16 \
  --puid 1000 --pgid 1000 --tz Europe/Berlin --gateway-api-user admin \
  --objstore-account-id 0012ab34cd56 --backup-repository b2:homelab-backups:stack
show secrets list --env dev

step "3. Preflight: every problem of the example stack at once (vault render --check)"
show render --check --env dev -f "$stack_file"

step "4. The example stack rendered with the vault's secrets, values from the vault masked"
show render --mask --env dev -f "$stack_file"

step "5. Which services use DATABASE_PASSWORD (what 'vault rotate' would recreate)"
show render --who-uses DATABASE_PASSWORD --env dev -f "$stack_file"

step "6. The socket proxy's decisions under the default rules (vault proxy check METHOD PATH)"
while read -r method path; do
  printf '$ vault proxy check %s %s\n' "$method" "$path" >&2
  vault proxy check "$method" "$path" || true
done <<'REQUESTS'
GET /v1.41/containers/json
HEAD /_ping
GET /version
POST /v1.41/containers/web/restart
POST /containers/web/exec
DELETE /v1.41/containers/web
POST /v1.41/images/create?fromImage=alpine
PUT /containers/web/archive
GET /v1.41/containers/%2e%2e/images/json
GET /containers/../volumes/x/../../system/df
REQUESTS

if [[ -n "${DEMO_HOLD:-}" && -t 0 ]]; then
  printf '\nThe console stays up at %s (admin / %s): press Enter to stop the demo.\n' "$console_url" "$admin_password" >&2
  read -r _
fi

step "7. Stop the vault"
kill -TERM "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=
echo "demo: done (the temporary vault under $work is removed)" >&2
