#!/usr/bin/env bash
# kind-images.sh: the images the kind tier pulls, made on this machine where no registry answers.
#
#   kind-images.sh node DIR     kind's node image for Kubernetes $K8S_VERSION from the binaries in
#                               DIR (install.sh kind's); prints its name, kindest/node:v$K8S_VERSION
#   kind-images.sh dockerfile   the base images the Dockerfile's FROM lines name, under those names
#   kind-images.sh rootfs       only the node's Debian rootfs (debootstrap; no engine needed)
#
# Nothing on the kind path changes: only the images come from here, and the node image's name, which
# the Makefile takes as KIND_NODE_IMAGE. The node image is laid out as `kind build node-image` lays
# it out; docs/testing.md ("kind where no registry answers") says where it differs and why. Each
# image carries a label with the hash of what made it, and is made again when that changes. Needs
# root and the engine docker-engine.sh starts (it names images a registry owns: not in another engine).
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ "${1:-}" = rootfs ] || : "${K8S_VERSION:?K8S_VERSION is not set (e.g. 1.37.2)}" "${KIND_VERSION:?KIND_VERSION is not set (e.g. v0.33.0)}"
CACHE=${KIND_IMAGES_CACHE:-/var/cache/operator-demo/kind-images}
suite=bookworm
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
# Debian packages of kind's base image (images/base/Dockerfile), with Debian's containerd, runc and
# CNI plugins where kind builds its own.
packages=systemd,systemd-sysv,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,bash,ca-certificates,curl,jq,procps,containerd,runc,containernetworking-plugins
label=operator-demo.recipe
path_env='ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

say() { printf 'kind images: %s\n' "$*" >&2; }
die() { printf 'kind images: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=apt.sh
. "$here/apt.sh"

# recipe WORDS...: a hash of this script and the words, what an image's label says made it.
recipe() { { cat "${BASH_SOURCE[0]}" "$here/runc-caps"; printf '%s\n' "$@"; } | sha256sum | cut -c1-16; }

# fresh IMAGE HASH: IMAGE exists, made by HASH.
fresh() { [ "$(docker image inspect -f "{{index .Config.Labels \"$label\"}}" "$1" 2>/dev/null)" = "$2" ]; }

# rootfs: Debian bookworm with kind's base packages, made once (debootstrap, 3 to 4 minutes).
rootfs() {
  local dir=$CACHE/rootfs-$suite-$(printf '%s' "$packages" | sha256sum | cut -c1-12)
  if [ ! -e "$dir/.complete" ]; then
    command -v debootstrap >/dev/null || apt_install debootstrap
    say "debootstrap $suite from ${mirror:-the default mirror} into $dir (3 to 4 minutes)"
    rm -rf "$dir" && mkdir -p "$CACHE"
    debootstrap --variant=minbase --include="$packages" "$suite" "$dir" ${mirror:+"$mirror"} >"$CACHE/debootstrap.log" 2>&1 ||
      { tail -n 20 "$CACHE/debootstrap.log" >&2; die "debootstrap failed (above; all of it in $CACHE/debootstrap.log)"; }
    rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
    touch "$dir/.complete"
  fi
  printf '%s\n' "$dir"
}

# import DIR IMAGE HASH CHANGE...: DIR's files as the one layer of IMAGE, labelled HASH.
import() {
  local dir=$1 image=$2 hash=$3 args=(); shift 3
  for c in "$@" "LABEL $label=$hash"; do args+=(--change "$c"); done
  tar -C "$dir" --exclude=./.complete -c . | docker import "${args[@]}" - "$image" >/dev/null
  say "made $image"
}

# bookworm: the rootfs as an image, the base of the images below that need a userland.
bookworm() {
  local dir hash image=operator-demo/bookworm:latest
  dir=$(rootfs)
  hash=$(recipe bookworm "$dir")
  fresh "$image" "$hash" || import "$dir" "$image" "$hash" "$path_env"
  printf '%s\n' "$image"
}

# layer IMAGE FROM FILE:DEST... CHANGE...: IMAGE as FROM plus files, through docker build.
layer() {
  local image=$1 from=$2 hash ctx; shift 2
  local files=() changes=()
  for a in "$@"; do case $a in /*:/*) files+=("$a") ;; *) changes+=("$a") ;; esac; done
  hash=$(recipe "$image" "$from" "$(docker image inspect -f '{{.Id}}' "$from")" "$@" \
    "$(for f in "${files[@]}"; do sha256sum "${f%%:*}"; done)")
  fresh "$image" "$hash" && return 0
  ctx=$(mktemp -d)
  { printf 'FROM %s\n' "$from"
    for f in "${files[@]}"; do cp "${f%%:*}" "$ctx/"; printf 'ADD %s %s\n' "$(basename "${f%%:*}")" "${f#*:}"; done
    printf '%s\n' "${changes[@]}" "LABEL $label=$hash"; } >"$ctx/Dockerfile"
  DOCKER_BUILDKIT=0 docker build -q -t "$image" "$ctx" >/dev/null 2>"$ctx/log" || { cat "$ctx/log" >&2; rm -rf "$ctx"; die "docker build of $image failed"; }
  rm -rf "$ctx"
  say "made $image"
}

# static IMAGE BIN DEST CHANGE...: IMAGE holding the static binary BIN at DEST alone.
static() {
  local image=$1 bin=$2 dest=$3 hash dir; shift 3
  hash=$(recipe "$image" "$dest" "$(sha256sum "$bin")" "$@")
  fresh "$image" "$hash" && return 0
  dir=$(mktemp -d)
  install -D -m 0755 "$bin" "$dir$dest"
  mkdir -m 1777 "$dir/tmp"
  import "$dir" "$image" "$hash" "$@"
  rm -rf "$dir"
}

# kind_files: the kind module's images/base/files, what its base image's Dockerfile copies in.
kind_files() {
  local dir
  dir=$(go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')/images/base/files
  [ -d "$dir" ] || die "no images/base/files in sigs.k8s.io/kind@$KIND_VERSION"
  printf '%s\n' "$dir"
}

# kind_base: kind's base image (images/base/Dockerfile of the kind module) on the rootfs.
kind_base() {
  local src dir hash rfs image=operator-demo/kind-base:$KIND_VERSION
  src=$(kind_files)
  rfs=$(rootfs)
  hash=$(recipe kind-base "$rfs" "$(cd "$src" && find . -type f | sort | xargs sha256sum)" "$(sha256sum "$BINS/crictl")")
  if ! fresh "$image-rootfs" "$hash"; then
    dir=$(mktemp -d "$CACHE/kind-base.XXXXXX")
    kind_base_files "$src" "$rfs" "$dir"
    import "$dir" "$image-rootfs" "$hash"
    rm -rf "$dir"
  fi
  # What docker import cannot set: systemd stops on SIGRTMIN+3, not SIGTERM.
  layer "$image" "$image-rootfs" 'ENV container=docker' 'STOPSIGNAL SIGRTMIN+3' "$path_env" \
    'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]'
  printf '%s\n' "$image"
}

# The static CNI configuration of the one node: ptp, addresses from kind's default Pod subnet's
# first /24 (the one kube-controller-manager gives the first node), and hostPort mappings.
cni_conflist='{
  "cniVersion": "0.4.0",
  "name": "kind-static",
  "plugins": [
    {"type": "ptp", "ipMasq": false, "ipam": {"type": "host-local", "dataDir": "/run/cni-ipam-state",
      "ranges": [[{"subnet": "10.244.0.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}]}, "mtu": 1500},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}'

# kind_base_files SRC ROOTFS DIR: ROOTFS copied into DIR, with kind's base files from SRC laid out
# and set up as images/base/Dockerfile does.
kind_base_files() {
  local src=$1 rfs=$2 dir=$3 f
  [ -d "$rfs/usr" ] || die "no rootfs at $rfs"
  cp -a "$rfs/." "$dir/"
  # The Dockerfile's COPY lines (but LICENSES): scripts 0755, the rest 0644.
  (cd "$src" && find etc kind usr -type f) | while read -r f; do
    case $f in usr/local/bin/* | kind/bin/*) install -D -m 0755 "$src/$f" "$dir/$f" ;; *) install -D -m 0644 "$src/$f" "$dir/$f" ;; esac
  done
  mkdir -p "$dir/etc/kubernetes/manifests" "$dir/opt/cni/bin" "$dir/etc/cni/net.d" "$dir/kind/manifests"
  printf '%s\n' "$cni_conflist" >"$dir/etc/cni/net.d/10-kind-static.conflist"
  { printf '%s\n' '# This node image has no kindnetd (its source is not a Go module): its CNI is the static' \
      '# configuration below, in /etc/cni/net.d. kind creates what this file holds.' \
      'apiVersion: v1' 'kind: ConfigMap' 'metadata:' '  name: kind-static-cni' '  namespace: kube-system' 'data:' '  10-kind-static.conflist: |'
    printf '%s\n' "$cni_conflist" | sed 's/^/    /'; } >"$dir/kind/manifests/default-cni.yaml"
  # containerd as kind configures it, but oom_score_adj restricted: raising a Pod's above its own
  # needs CAP_SYS_RESOURCE, which a node container may not have.
  sed -i 's/^\(\s*restrict_oom_score_adj\s*=\s*\)false/\1true/' "$dir/etc/containerd/config.toml"
  # kind's units and scripts name its own builds in /usr/local: Debian's are in /usr.
  for b in containerd ctr containerd-shim-runc-v2; do ln -sf "/usr/bin/$b" "$dir/usr/local/bin/$b"; done
  install -m 0755 "$here/runc-caps" "$dir/usr/local/sbin/runc"
  for p in host-local loopback ptp portmap; do ln -sf "/usr/lib/cni/$p" "$dir/opt/cni/bin/$p"; done
  install -m 0755 "$BINS/crictl" "$dir/usr/local/bin/crictl"
  chroot "$dir" /bin/sh -ec '
    ctr oci spec | jq ".hooks.createContainer[.hooks.createContainer | length] |= . + {\"path\": \"/kind/bin/mount-product-files.sh\"}" |
      jq "del(.process.rlimits)" >/etc/containerd/cri-base.json
    find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete
    rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* /lib/systemd/system/local-fs.target.wants/*
    rm -f /lib/systemd/system/sockets.target.wants/*udev* /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*
    echo ReadKMsg=no >>/etc/systemd/journald.conf
    systemctl enable kubelet.service containerd.service undo-mount-hacks.service >/dev/null 2>&1
    systemctl mask systemd-binfmt.service >/dev/null 2>&1'
}

# node DIR: the node image, from the binaries in DIR.
node() {
  BINS=$(cd "$1" && pwd); export BINS
  local base userland name=kindest/node:v$K8S_VERSION hash k8s=v$K8S_VERSION images=() wanted sandbox id
  for b in kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy etcd pause coredns crictl; do
    [ -x "$BINS/$b" ] || die "$BINS has no $b (install.sh kind provides them)"
  done
  base=$(kind_base)
  userland=$(bookworm)
  sandbox=$(sed -n 's/^\s*sandbox_image\s*=\s*"\(.*\)"/\1/p' "$(kind_files)/etc/containerd/config.toml")
  [ -n "$sandbox" ] || die "kind $KIND_VERSION's containerd configuration names no sandbox_image"
  mapfile -t wanted < <("$BINS/kubeadm" config images list --kubernetes-version "$k8s" 2>/dev/null | grep -v /pause:)
  [ ${#wanted[@]} -gt 0 ] || die "kubeadm config images list printed nothing"
  for img in "${wanted[@]}"; do
    case $img in
      */kube-proxy:*) layer "$img" "$userland" "$BINS/kube-proxy:/usr/local/bin/kube-proxy" ;;
      */kube-*:* | */etcd:*) b=${img##*/}; b=${b%%:*}; static "$img" "$BINS/$b" "/usr/local/bin/$b" "$path_env" ;;
      */coredns:*) static "$img" "$BINS/coredns" /coredns 'ENTRYPOINT ["/coredns"]' ;;
      *) die "kubeadm asks for $img, which this script has no recipe for" ;;
    esac
    images+=("$img")
  done
  static "$sandbox" "$BINS/pause" /pause 'ENTRYPOINT ["/pause"]' 'USER 65535:65535'
  images+=("$sandbox")

  hash=$(recipe node "$(docker image inspect -f '{{.Id}}' "$base")" \
    "$(for i in "${images[@]}"; do docker image inspect -f '{{.Id}}' "$i"; done)" \
    "$(sha256sum "$BINS/kubeadm" "$BINS/kubelet" "$BINS/kubectl")")
  if fresh "$name" "$hash"; then printf '%s\n' "$name"; return; fi
  say "making $name (kind $KIND_VERSION's layout) with ${images[*]}"
  id=$(docker run -d --entrypoint=sleep --security-opt seccomp=unconfined "$base" infinity)
  trap 'docker rm -f -v "$id" >/dev/null 2>&1 || true' EXIT
  # docker cp makes root their owner.
  for b in kubeadm kubelet kubectl; do docker cp "$BINS/$b" "$id:/usr/bin/$b"; done
  docker exec "$id" sh -c "printf %s $k8s >/kind/version"
  # The images go into the node's containerd, as kind's build puts them.
  docker exec "$id" sh -c 'nohup containerd >/dev/null 2>&1 & for i in 1 2 3 4 5 6 7 8 9 10; do [ -S /run/containerd/containerd.sock ] && break; sleep 1; done; ctr version >/dev/null'
  docker save "${images[@]}" | docker exec -i "$id" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests - >/dev/null
  # Stopped before the commit; it stays a zombie (the container's sleep reaps nothing): wait, at
  # most 10 s, for no live containerd.
  docker exec "$id" sh -c 'pkill containerd; for i in $(seq 50); do ps -eo stat=,comm= | grep -q "^[^Z].* containerd$" || break; sleep 0.2; done'
  docker commit --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' --change "LABEL $label=$hash" "$id" "$name" >/dev/null
  docker rm -f -v "$id" >/dev/null; trap - EXIT
  say "made $name"
  printf '%s\n' "$name"
}

# dockerfile: every base image the Dockerfile's FROM lines name.
dockerfile() {
  local img userland
  for img in $(awk 'toupper($1) == "FROM" {print $2}' Dockerfile | sort -u); do
    case $img in
      golang:*)
        local go_want=${img#golang:} have; have=$(go env GOVERSION); have=${have#go}
        [[ $have == "$go_want" || $have == "$go_want".* ]] || die "the Dockerfile wants $img; this machine's Go is $have"
        userland=$(bookworm)
        local goroot; goroot=$(go env GOROOT)
        # The machine's CA bundle, so that go mod download trusts what the machine's go trusts.
        layer "$img" "$userland" "$(tar_of "$goroot" go):/usr/local/" /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ \
          'ENV GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin GOTOOLCHAIN=local' 'WORKDIR /go' ;;
      gcr.io/distroless/static:nonroot) distroless "$img" ;;
      *) die "the Dockerfile names $img, which this script has no recipe for" ;;
    esac
  done
}

# tar_of DIR NAME: a cached tarball of DIR as NAME/ (docker build's ADD unpacks it).
tar_of() {
  local out=$CACHE/$2-$(basename "$(dirname "$1")")-$(head -n 1 "$1/VERSION" 2>/dev/null).tar
  [ -s "$out" ] || { mkdir -p "$CACHE"; tar -C "$(dirname "$1")" --transform "s,^$(basename "$1"),$2," -cf "$out" "$(basename "$1")"; }
  printf '%s\n' "$out"
}

# distroless IMAGE: what distroless/static:nonroot holds that a static manager reads: the nonroot
# user and group, a CA bundle, /tmp and the user's home.
distroless() {
  local image=$1 dir hash certs=/etc/ssl/certs/ca-certificates.crt
  hash=$(recipe "$image" "$(sha256sum "$certs")")
  fresh "$image" "$hash" && return 0
  dir=$(mktemp -d)
  mkdir -p "$dir/etc/ssl/certs" "$dir/home/nonroot" && mkdir -m 1777 "$dir/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$dir/etc/group"
  cp "$certs" "$dir/etc/ssl/certs/"
  chown 65532:65532 "$dir/home/nonroot"
  import "$dir" "$image" "$hash" 'USER 65532' 'WORKDIR /home/nonroot' \
    'ENV PATH=/usr/local/bin:/usr/bin:/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt'
  rm -rf "$dir"
}

[ "$(id -u)" = 0 ] || die "it debootstraps and chroots: run it as root"
if [ "${1:-}" = rootfs ]; then rootfs >/dev/null; exit 0; fi
docker info >/dev/null 2>&1 || die "no Docker engine answers (hack/k8sbin/docker-engine.sh up starts one)"
# It tags images under names a registry owns (golang, kindest/node, ...) and prunes what it left
# untagged: only in the engine docker-engine.sh started, unless told otherwise.
[ "$(docker info -f '{{.DockerRootDir}}')" = "${DOCKER_ENGINE_DATA:-/var/lib/operator-demo/docker}" ] || [ "${KIND_IMAGES_ANY_ENGINE:-}" = true ] ||
  die "this Docker engine is not docker-engine.sh's: its images would be shadowed by home-made ones (KIND_IMAGES_ANY_ENGINE=true to go ahead)"
case ${1:-} in
  node) [ -n "${2:-}" ] || die "usage: kind-images.sh node DIR"; node "$2" ;;
  dockerfile) dockerfile ;;
  *) die "usage: kind-images.sh node DIR | dockerfile | rootfs" ;;
esac
# What an image made again left untagged.
docker image prune -f >/dev/null
