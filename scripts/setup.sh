#!/usr/bin/env bash
# Installs what building, serving and testing Retry Lab needs, skipping whatever is already there
# at the right version. Usage: scripts/setup.sh [--browser]
#   --browser  also Debian's chromium and chromium-driver (for the browser tests)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

TRUNK_VERSION=0.22.1
want_browser=0
[ "${1:-}" = "--browser" ] && want_browser=1

say() { printf '[setup] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# 1. Rust targets: wasm32 for the page, wasm32v1-none to prove the core builds without std.
installed=$(rustup target list --installed)
for t in wasm32-unknown-unknown wasm32v1-none; do
  if grep -qx "$t" <<<"$installed"; then say "rust target $t: present"; else say "rust target $t: installing"; rustup target add "$t"; fi
done

# 1b. clippy and rustfmt, which the test script runs.
components=$(rustup component list --installed)
for c in clippy rustfmt; do
  if grep -q "^$c" <<<"$components"; then say "rust component $c: present"; else say "rust component $c: installing"; rustup component add "$c"; fi
done

# 2. wasm-bindgen CLI at exactly the version Cargo.lock pins.
wbg=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$wbg" ]; then
  say "wasm-bindgen-cli $wbg: present"
else
  say "wasm-bindgen-cli $wbg: installing (about 4 minutes)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install wasm-bindgen-cli --version "$wbg" --force
fi

# 3. Trunk (its rust-version is newer than our toolchain; it builds and works regardless).
if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" = "$TRUNK_VERSION" ]; then
  say "trunk $TRUNK_VERSION: present"
else
  say "trunk $TRUNK_VERSION: installing (about 10 to 14 minutes)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install trunk --version "$TRUNK_VERSION" --locked --ignore-rust-version --force
fi

# 4. npm packages: binaryen 132 (wasm-opt for Trunk), playwright-core and axe-core (browser tests),
#    and the JavaScript retry libraries the client presets are checked against.
if node -e 'const l=require("./package-lock.json").packages;for(const n of Object.keys(require("./package.json").devDependencies)){if(require("./node_modules/"+n+"/package.json").version!==l["node_modules/"+n].version)process.exit(1)}' 2>/dev/null; then
  say "npm packages: present"
else
  say "npm packages: installing"
  npm ci --no-audit --no-fund
fi

# 5. Chromium and its driver (Debian packages), only for the browser tests.
if [ "$want_browser" = 1 ]; then
  if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    say "chromium and chromedriver: present"
  else
    say "chromium and chromedriver: installing"
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q chromium chromium-driver
  fi
fi

# 5b. The batch systems the sharded sweeps run on in the tests (tests/sharding.sh): GNU parallel,
#     and Slurm with munge for a single-node cluster (Debian packages, about 2 minutes).
if command -v parallel >/dev/null && command -v slurmctld >/dev/null && command -v munged >/dev/null; then
  say "GNU parallel and Slurm: present"
else
  say "GNU parallel and Slurm: installing"
  as_root apt-get update -q
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q parallel slurm-wlm munge
fi

# 6. The Python retry libraries the client presets are checked against, pinned, in a virtual
#    environment of their own (tests/clients/.venv); reinstalled only when the pins change.
venv=tests/clients/.venv
want=$(sha256sum tests/clients/requirements.txt | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.pins" 2>/dev/null)" = "$want" ]; then
  say "python client libraries: present"
else
  say "python client libraries: installing (about a minute)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r tests/clients/requirements.txt
  echo "$want" > "$venv/.pins"
fi

# 7. Crate sources, so the offline Trunk build finds them.
cargo fetch --quiet
say "ready"
