#!/usr/bin/env bash
# Builds the lab and serves it at http://127.0.0.1:8080 (installs what is missing first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
echo
echo "Retry Lab: http://127.0.0.1:8080   (Ctrl-C stops it)"
echo
exec trunk serve --release
