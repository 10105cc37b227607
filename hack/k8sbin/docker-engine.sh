#!/usr/bin/env bash
# docker-engine.sh: a Docker engine for the kind tier on a Linux machine that has none.
#
#   docker-engine.sh up     start one (root; apt-get installs Debian's docker.io, jq and nftables)
#   docker-engine.sh down   stop it and put the machine back as `up` found it
#
# Where `docker info` already answers (a laptop with Docker, GitHub's runners) both do nothing. The
# engine `up` starts is the machine's default one (/var/run/docker.sock), used as any other; its
# images live in $DATA, which outlives the engine as setup-envtest's store does, so that what
# kind-images.sh made once is there for the next run on the same machine (docs/testing.md). What
# `down` restores, then checks: the engine and its containerd, the sysctls a kubelet inside kind
# writes (the node container shares the kernel) and ip_forward, one nftables table of its own (a
# masquerade to the Go module proxy: Docker's iptables rules are off), the bridges and cgroups the
# engine creates, and /lib/modules, which kind mounts into its node.
#
# The engine's default runtime is runc-caps beside this file: privileged containers, which kind's
# nodes are, would not start where the bounding set lacks a capability (CAP_SYS_RESOURCE on the
# virtual machines .ci/run runs on); elsewhere it changes nothing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=${DOCKER_ENGINE_DATA:-/var/lib/operator-demo/docker}
state=/run/operator-demo-docker
sock=/var/run/docker.sock
table=operator_demo_docker
sysctls=(net.ipv4.ip_forward kernel.panic kernel.panic_on_oops vm.overcommit_memory vm.panic_on_oom
  fs.inotify.max_user_watches fs.inotify.max_user_instances kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
# Debian bookworm's versions, what .ci/run's machines run; elsewhere the distribution's.
packages=("docker.io=20.10.24+dfsg1-1+deb12u1+b6" "jq" "nftables=1.0.6-2+deb12u2")

say() { printf 'docker engine: %s\n' "$*" >&2; }
die() { printf 'docker engine: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=apt.sh
. "$here/apt.sh"

# cgroup_dirs: the engine's cgroups (cgroup v1: one per controller; v2: one).
cgroup_dirs() { find /sys/fs/cgroup -maxdepth 2 -type d -name docker 2>/dev/null; }

# links: the network links the engine makes (its bridges, its containers' veths).
links() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(docker0|br-|veth)' || true; }

up() {
  if docker info >/dev/null 2>&1; then say "an engine already answers on this machine: using it"; return; fi
  [ "$(uname -s)" = Linux ] || die "no Docker engine answers: start Docker Desktop"
  [ "$(id -u)" = 0 ] || die "no Docker engine answers; this script starts one as root: sudo $0 up"
  [ ! -e "$state/pid" ] || down
  # Debian's docker.io brings the runc that runc-caps runs (/usr/sbin/runc).
  command -v dockerd >/dev/null && command -v jq >/dev/null && command -v nft >/dev/null && [ -x /usr/sbin/runc ] || apt_install "${packages[@]}"
  mkdir -p "$state" "$DATA"

  # What the machine is now, for down.
  local s v
  for s in "${sysctls[@]}"; do v=$(sysctl -n "$s" 2>/dev/null) && printf '%s=%s\n' "$s" "$v"; done >"$state/sysctls"
  links | sort >"$state/links"
  cgroup_dirs | sort >"$state/cgroups"
  [ -e /lib/modules ] && touch "$state/had-lib-modules"

  local args=(--data-root "$DATA" --exec-root "$state/exec" --pidfile "$state/dockerd.pid"
    --host "unix://$sock" --iptables=false --ip-masq=false --add-runtime "caps=$here/runc-caps" --default-runtime caps)
  say "starting dockerd (data in $DATA, log in $state/dockerd.log)"
  # A session of its own: a Ctrl-C of the command that started it does not stop it mid-run.
  setsid dockerd "${args[@]}" >"$state/dockerd.log" 2>&1 &
  echo $! >"$state/pid"
  trap 'say "up failed: stopping what it started"; down' EXIT
  local i
  for i in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$(cat "$state/pid")" 2>/dev/null || { tail -n 20 "$state/dockerd.log" >&2; die "dockerd exited"; }
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { tail -n 20 "$state/dockerd.log" >&2; die "dockerd did not answer in 30 s"; }

  # Containers reach the Go module proxy (a builder stage's go mod download) through the host,
  # masqueraded where the default route leaves.
  local iface
  iface=$(ip -o route show default | awk '{print $5; exit}')
  [ -n "$iface" ] || die "no default route: a build container could not reach the Go module proxy"
  sysctl -qw net.ipv4.ip_forward=1
  nft -f - <<EOF
table ip $table {
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    ip saddr 172.16.0.0/12 oifname "$iface" masquerade
  }
}
EOF
  trap - EXIT
  say "ready: $(docker version --format 'engine {{.Server.Version}}, client {{.Client.Version}}')"
}

down() {
  [ -e "$state/pid" ] || { say "no engine of this script's is running"; return; }
  local pid i left=()
  # dockerd's own pidfile, once it wrote one; else the PID up started.
  pid=$(cat "$state/dockerd.pid" 2>/dev/null || cat "$state/pid")
  # Containers first, so that their mounts and veths go with them.
  docker ps -q 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1 || true
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  # The containerd the engine started, if it outlived it.
  pkill -f "containerd --config $state/exec" 2>/dev/null || true
  nft delete table ip "$table" 2>/dev/null || true

  sysctl -q -p "$state/sysctls" >/dev/null 2>&1 || true
  links | sort | comm -13 "$state/links" - | xargs -r -n1 ip link delete 2>/dev/null || true
  for d in $(cgroup_dirs | sort | comm -13 "$state/cgroups" -); do
    find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  grep -F " $state/exec" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  [ -e "$state/had-lib-modules" ] || rmdir /lib/modules 2>/dev/null || true

  # Check.
  kill -0 "$pid" 2>/dev/null && left+=("dockerd $pid")
  nft list table ip "$table" >/dev/null 2>&1 && left+=("nftables table $table")
  while IFS='=' read -r k v; do [ "$(sysctl -n "$k" 2>/dev/null)" = "$v" ] || left+=("$k"); done <"$state/sysctls"
  [ -z "$(links | sort | comm -13 "$state/links" -)" ] || left+=("network links")
  [ -z "$(cgroup_dirs | sort | comm -13 "$state/cgroups" -)" ] || left+=("cgroups")
  grep -qF " $state/exec" /proc/mounts && left+=("mounts under $state/exec")
  [ -e "$state/had-lib-modules" ] || [ ! -e /lib/modules ] || left+=("/lib/modules")
  rm -rf "$state"
  [ ${#left[@]} -eq 0 ] || die "stopped, but left behind: ${left[*]}"
  say "stopped; the machine is as up found it (images kept in $DATA)"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  *) die "usage: docker-engine.sh up|down" ;;
esac
