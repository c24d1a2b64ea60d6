#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the sharded sweep's test: `start DIR` writes
# a minimal slurm.conf under DIR (this host as controller and as the one node, offered as 32
# CPUs so the short tasks of a test do not queue behind each other),
# starts munged, slurmctld and slurmd, and waits until the node takes jobs; `stop DIR` stops
# them by their pid files. Needs root and Debian's slurm-wlm and munge.
set -euo pipefail
cmd=$1 dir=$2
host=$(hostname -s)
case "$cmd" in
start)
  mkdir -p "$dir/state" "$dir/spool" /run/munge /var/log/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown munge:munge /etc/munge/munge.key /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
  pgrep -x munged >/dev/null || munged --force
  cat > "$dir/slurm.conf" <<CONF
ClusterName=retrylab
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=defer_batch=0
KillWait=5
MpiDefault=none
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmdParameters=config_overrides
NodeName=$host CPUs=32 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -c
  slurmd -c
  for _ in $(seq 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      exit 0
    fi
    sleep 0.5
  done
  echo "slurm: the node did not come up; $dir/slurmctld.log and slurmd.log say why" >&2
  exit 1
  ;;
stop)
  for pid in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
    [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  ;;
esac
