#!/usr/bin/env bash
# A single-node Slurm cluster for test/slurm (Debian's slurm-wlm and munge): its own munged, state
# and spool folders under DIR, slurmctld and slurmd inside a network namespace (abt-slurm) with a
# veth address (slurmctld wants a non-loopback one; 10.213.15.1/30), both ends in that namespace.
# No accounting daemon. Whatever talks to the cluster runs in the namespace: `cluster.sh exec`.
#
#   cluster.sh check          exit 0 if this machine can run it, else say why (exit 3)
#   cluster.sh up DIR         start munged, slurmctld, slurmd; wait until the node is idle
#   cluster.sh exec DIR CMD…  run CMD in the cluster's namespace with SLURM_CONF set
#   cluster.sh down DIR       stop the daemons, delete the namespace
set -euo pipefail
NS=abt-slurm
ADDR=10.213.15.1

case "${1:-}" in
check)
  [ "$(id -u)" = 0 ] || { echo "not root"; exit 3; }
  for tool in ip unshare munged slurmctld slurmd sbatch squeue scontrol scancel; do
    command -v "$tool" >/dev/null || { echo "missing $tool"; exit 3; }
  done
  ip netns add abt-probe 2>/dev/null || { echo "cannot create network namespaces"; exit 3; }
  ip netns del abt-probe
  ;;
up)
  dir=$2
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 700 "$dir/munge"
  [ -f "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  cat >"$dir/slurm.conf" <<CONF
ClusterName=abt
SlurmctldHost=$NS($ADDR)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=6817
SlurmdPort=6818
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
KillWait=3
InactiveLimit=0
SlurmdParameters=config_overrides
SlurmctldTimeout=30
SlurmdTimeout=30
CONF
  cat >"$dir/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupAutomount=no
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
CONF
  cat >>"$dir/slurm.conf" <<CONF
NodeName=$NS NodeAddr=$ADDR CPUs=8 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$NS Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
  ip netns add $NS
  ip -n $NS link set lo up
  ip -n $NS link add abt-sl0 type veth peer name abt-sl1
  ip -n $NS addr add $ADDR/30 dev abt-sl0
  ip -n $NS link set abt-sl0 up
  ip -n $NS link set abt-sl1 up
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
  # The node name is the host's name for slurmctld and slurmd: each in a UTS namespace of its own.
  ip netns exec $NS unshare --uts sh -c "hostname $NS; exec slurmctld -f '$dir/slurm.conf' -i"
  # slurmd insists on a cgroup plugin: a tmpfs on /sys/fs/cgroup in its own mount namespace holds
  # the v1 hierarchies it looks at (the netns's fresh /sys has none).
  ip netns exec $NS unshare --uts --mount sh -c "hostname $NS
    mount -t tmpfs abt-cgroup /sys/fs/cgroup
    for c in freezer cpuset memory devices; do mkdir -p /sys/fs/cgroup/\$c; mount -t cgroup -o \$c abt-cgroup /sys/fs/cgroup/\$c; done
    exec slurmd -f '$dir/slurm.conf' -N $NS"
  for _ in $(seq 1 100); do
    if SLURM_CONF="$dir/slurm.conf" ip netns exec $NS sinfo -h -o %t 2>/dev/null | grep -qx idle; then exit 0; fi
    sleep 0.2
  done
  echo "the cluster did not come up:"; tail -20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null
  exit 1
  ;;
exec)
  dir=$2
  shift 2
  exec env SLURM_CONF="$dir/slurm.conf" ip netns exec $NS "$@"
  ;;
down)
  dir=$2
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    if [ -s "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  done
  sleep 0.5
  # slurmstepd and jobs left behind, and anything else in the namespace.
  for pid in $(ip netns pids $NS 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    if [ -s "$pidfile" ]; then kill -9 "$(cat "$pidfile")" 2>/dev/null || true; fi
  done
  ip netns del $NS 2>/dev/null || true
  ;;
*)
  echo "usage: cluster.sh check|up|exec|down ..." >&2
  exit 2
  ;;
esac
