#!/usr/bin/env bash
# The demo: grows with the product. For now it shows the CLI frame and password generation.
set -euo pipefail
cd "$(dirname "$0")/.."
vault() { ./bin/run.js "$@"; }
echo "== vault --version"; vault --version
echo "== vault pwgen"; vault pwgen
echo "== vault pwgen --bytes 32 --encoding hex"; vault pwgen --bytes 32 --encoding hex
