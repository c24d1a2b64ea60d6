#!/usr/bin/env bash
# Sharded sweeps on real batch systems: the same sweep run whole, then in n parts (n = 1, 2, 3,
# 7, 64) by GNU parallel, by a Slurm array on a single-node cluster (tests/slurm-node.sh) and
# as the pods of docs/sweeps/indexed-job.yaml would (its own command, JOB_COMPLETION_INDEX 0..6),
# each merged by `retrylab merge`: the merged table's sha256 must be the whole sweep's. The Job
# manifest is also checked against Kubernetes' schema (kubernetes-validate --strict). A part
# missing, given twice or from another sweep must be refused.
# Usage: tests/sharding.sh path/to/retrylab
set -euo pipefail
cd "$(dirname "$0")/.."
lab=$(realpath "$1")
work=$(mktemp -d)
trap 'tests/slurm-node.sh stop "$work/slurm" 2>/dev/null || true; rm -rf "$work"' EXIT
# 15 rows, 3 runs each: a grid whose rows differ in size.
link='preset=metastable-none&backoff=full&runs=3&sweep.attempts=2..6&sweep.base=10ms,50ms,200ms'
fail() { echo "sharding: $*" >&2; exit 1; }

for format in markdown csv; do
  "$lab" sweep "$link" --format "$format" > "$work/whole.$format" 2>/dev/null
done
want=$(sha256sum < "$work/whole.markdown")
same() { # name, directory of parts, n
  local got
  got=$("$lab" merge "$2"/part-*.json | sha256sum)
  [ "$got" = "$want" ] || fail "$1, $3 parts: the merged table differs from the whole sweep"
  echo "$1, $3 parts: merged sha256 ${got:0:16} = the whole sweep's"
}

for n in 1 2 3 7 64; do
  d="$work/parallel-$n"; mkdir -p "$d"
  seq "$n" | parallel --will-cite -j2 "'$lab' sweep '$link' --shard {#}/$n --out '$d/part-{#}.json' 2>/dev/null"
  same "GNU parallel" "$d" "$n"
done

# Refusals: a part missing, a part twice, a part of another sweep.
d="$work/parallel-7"
if "$lab" merge "$d"/part-[1-6].json 2>"$work/err"; then fail "a missing part was not refused"; fi
grep -q "missing part 7" "$work/err" || fail "missing part: $(cat "$work/err")"
if "$lab" merge "$d"/part-*.json "$d/part-3.json" 2>"$work/err"; then fail "a part given twice was not refused"; fi
grep -q "given twice" "$work/err" || fail "part twice: $(cat "$work/err")"
"$lab" sweep "${link}&seed=2" --shard 3/7 --out "$work/other.json" 2>/dev/null
if "$lab" merge "$d"/part-[124567].json "$work/other.json" 2>"$work/err"; then fail "a part of another sweep was not refused"; fi
grep -q "another sweep" "$work/err" || fail "other sweep: $(cat "$work/err")"
echo "merge refuses a missing part, a part twice and a part of another sweep"

# A CSV sweep merges to its own CSV.
d="$work/csv"; mkdir -p "$d"
seq 3 | parallel --will-cite -j2 "'$lab' sweep '$link' --format csv --shard {#}/3 --out '$d/part-{#}.json' 2>/dev/null"
cmp -s <("$lab" merge "$d"/part-*.json) "$work/whole.csv" || fail "the CSV parts merge to another CSV"
echo "GNU parallel, 3 parts, CSV: merged byte for byte"

# Slurm: a single-node cluster, docs/sweeps/slurm-array.sh as the array job.
if [ "$(id -u)" = 0 ] && command -v slurmctld >/dev/null; then
  tests/slurm-node.sh start "$work/slurm"
  export SLURM_CONF="$work/slurm/slurm.conf"
  for n in 1 2 3 7 64; do
    d="$work/slurm-$n"; mkdir -p "$d"
    sbatch --parsable --array=0-$((n - 1)) --output="$d/slurm-%a.out" \
      docs/sweeps/slurm-array.sh "$lab" "$link" "$n" "$d" > "$d/job"
  done
  for _ in $(seq 600); do
    [ -z "$(squeue -h 2>/dev/null)" ] && break
    sleep 0.2
  done
  [ -z "$(squeue -h)" ] || fail "slurm: the arrays did not finish in 2 minutes"
  for n in 1 2 3 7 64; do same "Slurm array" "$work/slurm-$n" "$n"; done
  tests/slurm-node.sh stop "$work/slurm"
elif [ "${CI:-}" = true ]; then
  fail "slurm: CI runs as root with slurm-wlm installed (scripts/setup.sh)"
else
  echo "slurm: skipped (needs root and slurm-wlm, as CI has)"
fi

# Kubernetes: the manifest against the schema, then its own command as each pod would run it.
job=docs/sweeps/indexed-job.yaml
tests/clients/.venv/bin/kubernetes-validate --strict "$job" >/dev/null
py=tests/clients/.venv/bin/python
read -r count completions <<<"$("$py" -c '
import sys, yaml, re
j = yaml.safe_load(open(sys.argv[1]))
cmd = j["spec"]["template"]["spec"]["containers"][0]["command"][2]
print(re.search(r"--shard-count (\d+)", cmd).group(1), j["spec"]["completions"])
' "$job")"
[ "$count" = "$completions" ] || fail "$job: --shard-count $count but completions $completions"
cmd=$("$py" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]["containers"][0]["command"][2])' "$job")
d="$work/k8s"; mkdir -p "$d"
mkdir -p "$work/bin"; ln -sf "$lab" "$work/bin/retrylab"
for i in $(seq 0 $((count - 1))); do
  JOB_COMPLETION_INDEX=$i PATH="$work/bin:$PATH" sh -c "${cmd//\/parts/$d}" 2>/dev/null
done
"$lab" sweep "$("$py" -c 'import sys,re; print(re.search(r"sweep \x27([^\x27]+)\x27", sys.argv[1]).group(1))' "$cmd")" > "$work/k8s-whole.md" 2>/dev/null
cmp -s <("$lab" merge "$d"/part-*.json) "$work/k8s-whole.md" || fail "$job: its pods' parts do not merge to the whole sweep"
echo "Indexed Job: valid against Kubernetes 1.37's schema; its $count pods' parts merge byte for byte"
