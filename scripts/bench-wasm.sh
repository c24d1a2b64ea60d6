#!/usr/bin/env bash
# Times the 2015 sweep natively and in wasm (Node), and checks both count the same calls. The
# wasm is built as the page builds it (`--profile page`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
cargo run -q --release -p retry-model --example occ_sweep
cargo build -q --profile page -p retrylab-web --target wasm32-unknown-unknown
wasm-bindgen --target nodejs --out-dir target/wasm-node target/wasm32-unknown-unknown/page/retrylab_web.wasm
echo '{"type": "commonjs"}' > target/wasm-node/package.json
# The same wasm-opt pass the page build runs (Trunk's data-wasm-opt="s").
wasm-opt -Os --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  target/wasm-node/retrylab_web_bg.wasm -o target/wasm-node/retrylab_web_bg.wasm
node -e '
const m = require(process.cwd() + "/target/wasm-node/retrylab_web.js");
for (const label of ["first", "second"]) {
  const t = performance.now();
  const calls = m.occ_sweep_calls();
  console.log(`wasm:   ${calls} write calls in ${((performance.now() - t) / 1000).toFixed(3)} s (${label} run, Node ${process.version})`);
}
'
