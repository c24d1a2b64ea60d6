#!/usr/bin/env bash
# Times the whole 2015 sweep on one core, this checkout against an earlier commit, alternated in
# the same minutes, and checks that both print the same rows. A machine's speed varies from one
# host to the next by a third and more, so the figure to compare across hosts is the ratio.
#
#   scripts/bench-2015.sh [RUNS] [BASE]
#
# RUNS defaults to 9. BASE defaults to 41dcdd0, the last commit before the 2015 sweep's speed work began,
# whose sweep took 1.46 to 1.55 s (the 0.6 s target is 0.39 to 0.41 of that).
# The base is built once into target/bench-2015 and kept.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
runs="${1:-9}"
base="${2:-41dcdd0}"
link='preset=occ-2015&sweep.clients=10..190/10&sweep.backoff=none,exponential,full,equal,decorrelated'
out=target/bench-2015
mkdir -p "$out"
target="${CARGO_TARGET_DIR:-target}"
cargo build -q --release --locked -p retrylab-cli
cp "$target/release/retrylab" "$out/retrylab-now"
if [ ! -x "$out/retrylab-$base" ]; then
  rm -rf "$out/tree"
  git worktree add -f --detach "$out/tree" "$base" -q
  (cd "$out/tree" && CARGO_TARGET_DIR="$PWD/../target" cargo build -q --release --locked -p retrylab-cli)
  cp "$out/target/release/retrylab" "$out/retrylab-$base"
  git worktree remove --force "$out/tree"
fi
a="$out/retrylab-$base"
b="$out/retrylab-now"
if ! cmp -s <("$a" sweep "$link" 2>/dev/null) <("$b" sweep "$link" 2>/dev/null); then
  echo "the two builds print different rows" >&2
  exit 1
fi
# One timed run of $1, in seconds.
timed() {
  local start end
  start=$(date +%s.%N)
  taskset -c 0 "$1" sweep "$link" >/dev/null 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}'
}
: > "$out/times"
for _ in $(seq "$runs"); do
  echo "base $(timed "$a")" >> "$out/times"
  echo "now $(timed "$b")" >> "$out/times"
done
summary() {
  grep "^$1 " "$out/times" | awk '{print $2}' | sort -n |
    awk '{v[NR] = $1} END {printf "%.3f %.3f %.3f\n", v[1], v[int((NR + 1) / 2)], v[NR]}'
}
read -r a_min a_med a_max <<< "$(summary base)"
read -r b_min b_med b_max <<< "$(summary now)"
printf 'base %s: %s to %s s (median %s)\n' "$base" "$a_min" "$a_max" "$a_med"
printf 'now:        %s to %s s (median %s)\n' "$b_min" "$b_max" "$b_med"
awk -v a="$a_min" -v b="$b_min" -v am="$a_med" -v bm="$b_med" 'BEGIN {
  printf "now / base: %.2f at the fastest, %.2f at the median (the target is 0.39 to 0.41)\n", b / a, bm / am
}'
