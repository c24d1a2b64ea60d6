#!/usr/bin/env bash
# Runs every test: formatting and clippy; native unit, property and golden tests; the client presets against the
# real retry libraries; the no_std build of the core; the
# wasm tests in Node; the release page build, the offline file and the JavaScript API module (checked in Node against
# the CLI); the browser test in headless Chromium.
# Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --browser
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
step() { printf '\n== %s\n' "$*"; }

step "format, lints and layout (cargo fmt --check; clippy natively and on wasm32; no import cycles)"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p retrylab-web -p retrylab-import-web --target wasm32-unknown-unknown --all-targets --locked -- -D warnings
python3 scripts/check-layers.py

step "native tests (unit, property, golden, doc)"
cargo test --workspace --locked
# The documentation builds with every intra-doc link resolved (a broken link is an error).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --locked
# The population engine's checks catch a deliberately wrong step (every jittered retry a tick
# late, every queue server's work a bin late): built so, its agreement test asserts that the
# engines' distributions then differ, and the M/M/c check that the queue's means do.
cargo test -p retry-model --locked --test population --features mutation-late-waits -- --exact both_engines_draw_the_same_distributions a_ten_minute_outage_at_production_rate_follows_the_fluid_twin the_queue_server_on_counts_meets_the_m_m_c_closed_forms

step "client presets against the libraries themselves (tests/clients: Python, npm and Rust crates, KS per retry)"
cargo build -q -p retrylab-cli --locked
lab="${CARGO_TARGET_DIR:-target}/debug/retrylab"
tests/clients/.venv/bin/python tests/clients/check_py.py "$lab"
tests/clients/.venv/bin/python tests/clients/check_js.py "$lab"
tests/clients/.venv/bin/python tests/clients/adaptive_botocore.py
step "exported configurations read by the real parsers and libraries (grpcio, tenacity, botocore; the rest by structure)"
tests/clients/.venv/bin/python tests/configs/check_exports.py "$lab"
step "the corpus and its exports read by Envoy's API (xds-protos) and Istio's and Gateway API's CRD schemas (@kubernetes-models)"
tests/clients/.venv/bin/python tests/configs/check_envoy_proto.py "$lab"
node tests/configs/check_k8s_schemas.mjs "$lab"
cargo build -q --release --locked --manifest-path tests/clients/rust/Cargo.toml --target-dir "${CARGO_TARGET_DIR:-target}/client-draws"
tests/clients/.venv/bin/python tests/clients/check_rs.py "$lab" "${CARGO_TARGET_DIR:-target}/client-draws/release/client-draws"

step "sharded sweeps merged byte for byte: GNU parallel, a single-node Slurm array, a Kubernetes Indexed Job's pods"
tests/sharding.sh "$lab"

step "the core builds without std (wasm32v1-none)"
cargo build -p retry-model --no-default-features --target wasm32v1-none --locked

step "wasm tests in Node (fingerprints equal native)"
cargo test -p retrylab-web --target wasm32-unknown-unknown --locked

step "release build of the page (Trunk)"
trunk build --release

# A sanity limit, so nothing bloats by accident: the page's budget is what a reader waits for
# (scripts/bench-page.mjs, the first chart under a slow network and CPU; docs/benchmarks.md).
node scripts/page-size.mjs --max 600

step "the single offline file (dist-offline/retrylab.html)"
node scripts/build-offline.mjs

step "the JavaScript API in Node (dist/retrylab.mjs against the CLI's JSON)"
node scripts/build-api.mjs
cargo build -q -p retrylab-cli --locked
node tests/api-node.mjs

step "browser test (headless Chromium)"
node tests/e2e.mjs

step "all tests passed"
