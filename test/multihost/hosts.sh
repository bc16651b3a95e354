#!/usr/bin/env bash
# Hosts for the multi-host test: a file server (an sshd) and N "hosts", each a network namespace
# with its own veth pair to the server, its own UTS (hostname), PID and mount namespace, mounting the
# server's export over sshfs. Nothing leaves the machine: every address is on a veth pair between
# namespaces this script made (10.213.14.0/24, one /30 per host); names start with "abt-".
#
#   hosts.sh check                      exit 0 if this machine can run it, else say why (exit 3)
#   hosts.sh server DIR N               namespaces, veths, an sshd exporting the machine's / (root only
#                                       by key from DIR/ssh), for N hosts
#   hosts.sh host DIR I HOSTNAME EXPORT MOUNT OPTS -- CMD...
#                                       run CMD as host I (1..N): new UTS+PID+mount namespaces inside
#                                       abt-hI, EXPORT mounted at MOUNT with sshfs options OPTS; the
#                                       mount and every process die with CMD (its PID namespace's init)
#   hosts.sh down DIR                   kill the sshd, delete every abt- namespace (and its veths)
set -euo pipefail

SUBNET=10.213.14
PORT=2222

srv_ip() { echo "$SUBNET.$(( ($1 - 1) * 4 + 1 ))"; }
host_ip() { echo "$SUBNET.$(( ($1 - 1) * 4 + 2 ))"; }

case "${1:-}" in
check)
  [ "$(id -u)" = 0 ] || { echo "not root"; exit 3; }
  for tool in ip unshare sshfs /usr/sbin/sshd ssh-keygen fusermount3; do
    command -v "$tool" >/dev/null || { echo "missing $tool"; exit 3; }
  done
  [ -c /dev/fuse ] || { echo "no /dev/fuse"; exit 3; }
  ip netns add abt-probe 2>/dev/null || { echo "cannot create network namespaces"; exit 3; }
  ip netns del abt-probe
  unshare --uts --pid --mount --fork --mount-proc true 2>/dev/null || { echo "cannot unshare UTS/PID/mount namespaces"; exit 3; }
  ;;
server)
  dir=$2 n=$3
  mkdir -p "$dir/ssh" /run/sshd
  [ -f "$dir/ssh/id" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/id"
  [ -f "$dir/ssh/host" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/host"
  cp "$dir/ssh/id.pub" "$dir/ssh/authorized_keys"
  cat >"$dir/ssh/sshd_config" <<CONF
Port $PORT
HostKey $dir/ssh/host
PidFile $dir/ssh/sshd.pid
AuthorizedKeysFile $dir/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 100
MaxSessions 100
Subsystem sftp internal-sftp
CONF
  ip netns add abt-srv
  ip -n abt-srv link set lo up
  for i in $(seq 1 "$n"); do
    ip netns add "abt-h$i"
    ip -n "abt-h$i" link set lo up
    ip link add "abt-s$i" netns abt-srv type veth peer name "abt-h$i" netns "abt-h$i"
    ip -n abt-srv addr add "$(srv_ip "$i")/30" dev "abt-s$i"
    ip -n abt-srv link set "abt-s$i" up
    ip -n "abt-h$i" addr add "$(host_ip "$i")/30" dev "abt-h$i"
    ip -n "abt-h$i" link set "abt-h$i" up
  done
  ip netns exec abt-srv /usr/sbin/sshd -f "$dir/ssh/sshd_config" -E "$dir/ssh/sshd.log"
  for _ in $(seq 1 50); do [ -s "$dir/ssh/sshd.pid" ] && break; sleep 0.1; done
  [ -s "$dir/ssh/sshd.pid" ] || { echo "sshd did not start:"; cat "$dir/ssh/sshd.log"; exit 1; }
  ;;
host)
  dir=$2 i=$3 name=$4 export=$5 mount=$6 opts=$7
  shift 7
  [ "$1" = -- ] && shift
  # Inside: the hostname, a fresh /proc (our PID namespace), the share, then CMD. When CMD (pid 1
  # of the namespace) ends, the kernel kills the rest, sshfs included, and the mount namespace
  # (with the mount) goes with its last process.
  exec ip netns exec "abt-h$i" unshare --uts --pid --mount --fork --mount-proc --propagation private \
    bash -c '
      set -e
      hostname "$1"; mkdir -p "$3"
      sshfs -o "IdentityFile=$6/ssh/id,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,LogLevel=ERROR,port='"$PORT"',$4" "root@$5:$2" "$3"
      shift 6
      status=0; "$@" || status=$?
      fusermount3 -u -z "$0" 2>/dev/null || true
      exit $status
    ' "$mount" "$name" "$export" "$mount" "$opts" "$(srv_ip "$i")" "$dir" "$@"
  ;;
down)
  dir=$2
  if [ -s "$dir/ssh/sshd.pid" ]; then kill "$(cat "$dir/ssh/sshd.pid")" 2>/dev/null || true; fi
  # sshd's children (sftp sessions) in the server namespace, and anything left in a host namespace.
  for ns in $(ip netns list | awk '/^abt-(srv|h[0-9]+)( |$)/ {print $1}'); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  done
  for ns in $(ip netns list | awk '/^abt-(srv|h[0-9]+)( |$)/ {print $1}'); do ip netns del "$ns" 2>/dev/null || true; done
  ;;
*)
  echo "usage: hosts.sh check|server|host|down ..." >&2
  exit 2
  ;;
esac
