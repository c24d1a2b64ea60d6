#!/usr/bin/env bash
# A Slurm array job that runs one part of a Retry Lab sweep per task, 0-based from
# SLURM_ARRAY_TASK_ID. Submit it with as many tasks as parts, then merge the parts:
#
#   sbatch --wait --array=0-6 docs/sweeps/slurm-array.sh retrylab 'LINK' 7 parts/
#   retrylab merge parts/part-*.json > sweep.md
#
# Arguments: the retrylab binary, the link (quoted), the number of parts, the directory for
# the part files (shared by the nodes). Add --format csv or json before --shard-index-env for
# that output; the merge writes what the parts were made for.
#SBATCH --job-name=retrylab-sweep
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
set -euo pipefail
lab=$1 link=$2 parts=$3 dir=$4
"$lab" sweep "$link" --format "${FORMAT:-markdown}" \
  --shard-index-env SLURM_ARRAY_TASK_ID --shard-count "$parts" \
  --out "$dir/part-$SLURM_ARRAY_TASK_ID.json"
