#!/usr/bin/env bash
# install.sh puts a Kubernetes control plane's binaries where setup-envtest looks for them.
#
#   install.sh envtest        etcd, kube-apiserver, kubectl             (make setup-envtest)
#   install.sh controlplane   the same plus kube-controller-manager     (make setup-controlplane)
#   install.sh kind           the same plus a kind node's: kubelet, kubeadm, kube-scheduler,
#                             kube-proxy, CoreDNS, crictl and the pause binary, what kind-images.sh
#                             puts into kind's node image (make kind-images; Linux)
#   install.sh sync           re-pin this directory's Go module to K8S_VERSION (make k8sbin-sync)
#
# It prints one line on stdout: the directory holding the binaries, in setup-envtest's layout
# ($BIN_DIR/k8s/<version>-<os>-<arch>). Everything else goes to stderr. Where they come from, first
# that works (docs/control-plane.md): $BIN_DIR/k8s; setup-envtest's user-level store, linked into
# $BIN_DIR; a download (setup-envtest's, dl.k8s.io's), unless ENVTEST_INSTALLED_ONLY=true; a build
# from Go module sources (this directory's module for the first of kubernetes-versions.txt, else
# one written into $BIN_DIR/k8sbin/<version>) into the store first.
#
# Environment (the Makefile sets all but the last two):
#   K8S_VERSION            exact Kubernetes version to build, e.g. 1.37.2 (kubernetes-versions.txt's, for the minor)
#   ENVTEST_K8S_VERSION    what setup-envtest selects, e.g. 1.37 (any installed 1.37.x will do)
#   SETUP_ENVTEST          path to the setup-envtest binary
#   BIN_DIR                the project's bin directory
#   ENVTEST_INSTALLED_ONLY true: never download (skips straight to the source build when nothing is installed)
#   KUBEBUILDER_ASSETS     when set and complete, used as it is
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { printf 'control plane: %s\n' "$*" >&2; }
die() { printf 'control plane: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=apt.sh
. "$here/apt.sh"

: "${ENVTEST_K8S_VERSION:?ENVTEST_K8S_VERSION is not set (e.g. 1.37)}"
[ -n "${K8S_VERSION:-}" ] || die "Kubernetes $ENVTEST_K8S_VERSION is not supported: the supported minors are" \
  "$(awk '!/^#/ && NF {printf "%s ", $1}' "$here/kubernetes-versions.txt")(hack/k8sbin/kubernetes-versions.txt)"
: "${SETUP_ENVTEST:?SETUP_ENVTEST is not set}"
: "${BIN_DIR:?BIN_DIR is not set}"
ENVTEST_INSTALLED_ONLY=${ENVTEST_INSTALLED_ONLY:-false}

os=$(go env GOOS)
arch=$(go env GOARCH)
store=${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest/k8s
envtest_bins=(etcd kube-apiserver kubectl)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# missing DIR BIN... : prints the BINs that are not executable files in DIR; has: none is.
missing() {
  local dir=$1 b; shift
  for b in "$@"; do [ -x "$dir/$b" ] || printf '%s ' "$b"; done
}
has() { [ -z "$(missing "$@")" ]; }

# fill DIR CMD...: runs CMD with $out a new empty directory, then publishes what it wrote there
# into DIR; if CMD fails, so does fill, and DIR is left as it was.
fill() {
  local dir=$1 out rc=0; shift
  out=$(mktemp -d)
  "$@" || rc=$?
  [ "$rc" != 0 ] || publish "$out" "$dir"
  rm -rf "$out"
  return "$rc"
}

# publish SRC DST: make DST hold SRC's files. DST appears complete or not at all; files added to
# an existing DST are renamed in one by one. Hard links where the file system allows, else copies.
publish() {
  local src=$1 dst=$2 f tmp
  mkdir -p "$(dirname "$dst")"
  tmp=$(mktemp -d "$(dirname "$dst")/.partial.XXXXXX")
  chmod 755 "$tmp"
  for f in "$src"/*; do
    ln "$f" "$tmp/" 2>/dev/null || cp -p "$f" "$tmp/"
  done
  if [ ! -e "$dst" ] && mv -T "$tmp" "$dst" 2>/dev/null; then return 0; fi
  mkdir -p "$dst"
  for f in "$tmp"/*; do
    [ -e "$dst/$(basename "$f")" ] || mv "$f" "$dst/"
  done
  rm -rf "$tmp"
}

# k8s_of DIR: the Kubernetes version in a store directory's name (1.37.2-linux-amd64 -> 1.37.2).
k8s_of() { basename "$1" | sed "s/-$os-$arch\$//"; }

# sync_module DIR: pin the Go module in DIR to k8s.io/kubernetes v$K8S_VERSION, with every staging
# module that Kubernetes replaces locally replaced by its published v0.x.y, and etcd at the version
# Kubernetes itself requires.
sync_module() {
  local dir=$1 kv=v$K8S_VERSION sv=v0.${K8S_VERSION#1.} mod etcd args=()
  mkdir -p "$dir"
  mod=$(cd "$here" && go mod download -json "k8s.io/kubernetes@$kv" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
  [ -f "$mod" ] || die "cannot read k8s.io/kubernetes@$kv's go.mod from the module proxy"
  etcd=$(awk '$1 == "go.etcd.io/etcd/server/v3" {print $2}' "$mod")
  [ -n "$etcd" ] || die "k8s.io/kubernetes@$kv does not name an etcd server version"
  for p in $(sed -n '/^replace (/,/^)/p' "$mod" | awk '$2 == "=>" {print $1}'); do
    args+=("-replace=$p=$p@$sv")
  done
  (
    cd "$dir"
    printf 'module example.com/operator-demo/hack/k8sbin\n\ngo %s\n' "$(awk '$1 == "go" {print $2}' "$mod")" >go.mod
    rm -f go.sum
    go mod edit "${args[@]}" "-require=k8s.io/kubernetes@$kv" "-require=go.etcd.io/etcd/server/v3@$etcd" -tool=go.etcd.io/etcd/server/v3 \
      -tool=k8s.io/kubernetes/cmd/{kube-apiserver,kube-controller-manager,kubectl,kubelet,kube-scheduler,kube-proxy,kubeadm}
    go mod tidy
  )
  say "${dir#"$PWD"/} pinned to Kubernetes $kv, etcd $etcd (${#args[@]} staging modules replaced)"
}

# pinned DIR MODULE: the version of MODULE that the Go module in DIR requires.
pinned() { (cd "$1" && go list -m -f '{{.Version}}' "$2"); }

# module_dir: the Go module that builds K8S_VERSION: this directory's for the version it pins (the
# default), else one of its own under $BIN_DIR/k8sbin, pinned the same way on first use.
module_dir() {
  local dir=$BIN_DIR/k8sbin/$K8S_VERSION
  if [ "$(pinned "$here" k8s.io/kubernetes)" = "v$K8S_VERSION" ]; then
    printf '%s\n' "$here"
    return
  fi
  if [ ! -f "$dir/go.sum" ] || [ "$(pinned "$dir" k8s.io/kubernetes)" != "v$K8S_VERSION" ]; then
    say "Kubernetes $K8S_VERSION is not the version hack/k8sbin pins: writing a module for it in $dir"
    sync_module "$dir" >&2
  fi
  printf '%s\n' "$dir"
}

# build BIN...: build the named binaries from Go module sources into $out (fill's).
build() {
  local pkgs=() b v=v$K8S_VERSION minor start dir ldflags="-s -w"
  dir=$(module_dir)
  for b in "$@"; do
    case $b in
      etcd) pkgs+=(go.etcd.io/etcd/server/v3) ;;
      *) pkgs+=("k8s.io/kubernetes/cmd/$b") ;;
    esac
  done
  minor=${K8S_VERSION#1.}; minor=${minor%%.*}
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  say "building $* from Go module sources (Kubernetes $v, etcd $(pinned "$dir" go.etcd.io/etcd/server/v3))"
  say "5 to 8 minutes on 2 cores the first time, seconds once the Go build cache holds it"
  start=$SECONDS
  # -v names each package as it is compiled: count them so a long build shows it is moving.
  if ! (cd "$dir" && CGO_ENABLED=0 go build -v -trimpath -ldflags "$ldflags" -o "$out/" "${pkgs[@]}") 2>&1 |
    awk '/^#|: |^go: / { print > "/dev/stderr"; next }
         { if (++n % 250 == 0) printf "control plane: %d packages compiled\n", n > "/dev/stderr" }'; then
    return 1
  fi
  # go build names etcd's binary after its package.
  [ ! -e "$out/server" ] || mv "$out/server" "$out/etcd"
  say "built $* in $((SECONDS - start))s"
}

# download VERSION BIN...: the BINs of Kubernetes VERSION from its release site, into $out (fill's).
download() {
  local v=$1 b; shift
  for b in "$@"; do
    curl -fsSL --retry 2 -o "$out/$b" "https://dl.k8s.io/release/v$v/bin/$os/$arch/$b" 2>"$log" || return 1
    chmod +x "$out/$b"
  done
}

# from_source DIR WHAT BIN...: build the BINs into DIR, saying why (ENVTEST_INSTALLED_ONLY, or the
# failure of WHAT: $log's last line).
from_source() {
  local dir=$1 reason="ENVTEST_INSTALLED_ONLY=true and none installed"
  [ "$ENVTEST_INSTALLED_ONLY" = true ] || reason="$2 failed: $(tail -n 1 "$log")"
  shift 2
  say "$reason; building from source"
  fill "$dir" build "$@" || die "no $*: $reason; and the build from source failed (above)"
}

# tool DIR NAME: CoreDNS, crictl or pause at the version DIR's Kubernetes names (kubeadm's
# constants, its build/dependencies.yaml, build/pause/Makefile's TAG). CoreDNS and crictl are built
# from their Go modules (neither replaces a dependency, so go install builds it as it is); pause,
# the one process of every Pod's sandbox, from the module's build/pause/linux/pause.c as the
# release compiles it (that Makefile's CFLAGS; `pause -v` says the tag, the pause image's).
tool() {
  local dir=$1 name=$2 src version pkg
  # Where the Go module cache holds k8s.io/kubernetes at DIR's version.
  src=$(cd "$(module_dir)" && go mod download -json "k8s.io/kubernetes@v$(k8s_of "$dir")" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  case $name in
    coredns) version=$(sed -n 's/^\s*CoreDNSVersion = "\(.*\)"/\1/p' "$src/cmd/kubeadm/app/constants/constants.go"); pkg=github.com/coredns/coredns ;;
    crictl) version=v$(awk '/name: "crictl"/ {getline; print $2; exit}' "$src/build/dependencies.yaml"); pkg=sigs.k8s.io/cri-tools/cmd/crictl ;;
    pause) version=v$(sed -n 's/^TAG ?= //p' "$src/build/pause/Makefile"); pkg=$src/build/pause/linux/pause.c ;;
  esac
  [ "$version" != v ] && [ -n "$version" ] || die "k8s.io/kubernetes@v$(k8s_of "$dir") names no $name version"
  if [ "$name" = crictl ]; then
    # The Go module proxy may not serve that release (v1.35.0, which Kubernetes 1.36 names): crictl
    # speaks CRI v1 to the node's containerd whatever its minor, so take the newest release served
    # that is not newer, saying so.
    local served nearest
    served=$(cd "$(module_dir)" && go list -m -versions sigs.k8s.io/cri-tools) || die "the Go module proxy lists no crictl releases (above)"
    served=$(tr ' ' '\n' <<<"$served" | tail -n +2 | { grep -v -- - || true; }) # releases, not candidates
    if ! grep -qxF "$version" <<<"$served"; then
      nearest=$(printf '%s\n' "$served" "$version" | sort -V | grep -B1 -xF "$version" | head -n 1)
      [ "$nearest" != "$version" ] || die "the Go module proxy serves no crictl release up to $version (it serves: ${served//$'\n'/ })"
      say "crictl $version is not served by the Go module proxy; taking $nearest, the newest served before it"
      version=$nearest
    fi
  fi
  say "building $name $version from ${pkg#"$src/"}"
  case $name in
    pause) fill "$dir" compile_pause "$pkg" "$version" ;;
    *) fill "$dir" go_install "$pkg@$version" ;;
  esac || die "building $name $version from $pkg failed (above)"
}

# go_install PACKAGE@VERSION, compile_pause SOURCE VERSION: the binary, static and stripped, into
# $out (fill's).
go_install() { CGO_ENABLED=0 GOBIN=$out go install -trimpath -ldflags "-s -w" "$1" >&2; }
compile_pause() { gcc -Os -Wall -Werror -static -DVERSION="$2" -o "$out/pause" "$1" && strip "$out/pause"; }

# provide BIN...: make sure the user-level store has a directory with every BIN. Prints it.
provide() {
  local dir b release=()

  # etcd, kube-apiserver, kubectl: an installed set of the wanted minor, else download, else build.
  if dir=$("$SETUP_ENVTEST" use -i "$ENVTEST_K8S_VERSION" -p path 2>/dev/null) && has "$dir" "${envtest_bins[@]}"; then
    :
  elif [ "$ENVTEST_INSTALLED_ONLY" != true ] && dir=$("$SETUP_ENVTEST" use "$ENVTEST_K8S_VERSION" -p path 2>"$log") &&
    has "$dir" "${envtest_bins[@]}"; then
    say "downloaded etcd, kube-apiserver, kubectl with setup-envtest"
  else
    dir=$store/$K8S_VERSION-$os-$arch
    from_source "$dir" "setup-envtest download" "${envtest_bins[@]}"
  fi

  # The rest, which setup-envtest does not ship: a node's tools built, the others downloaded from
  # the release site, else built.
  for b in $(missing "$dir" "$@"); do
    case $b in
      coredns | crictl | pause) tool "$dir" "$b" ;;
      *) release+=("$b") ;;
    esac
  done
  if [ ${#release[@]} -eq 0 ]; then
    :
  elif [ "$ENVTEST_INSTALLED_ONLY" != true ] && fill "$dir" download "$(k8s_of "$dir")" "${release[@]}"; then
    say "downloaded ${release[*]} v$(k8s_of "$dir")"
  else
    from_source "$dir" "${release[*]} download" "${release[@]}"
  fi
  printf '%s\n' "$dir"
}

main() {
  local want dir src
  case ${1:-} in
    envtest) want=("${envtest_bins[@]}") ;;
    controlplane) want=("${envtest_bins[@]}" kube-controller-manager) ;;
    kind)
      [ "$os" = linux ] || die "kind's node runs Linux binaries alone"
      # The C compiler and static libc the pause binary needs, apt-get installed (root) where the
      # machine lacks them, at Debian bookworm's versions there.
      if ! command -v gcc >/dev/null || [ "$(gcc -print-file-name=libc.a)" = libc.a ]; then
        apt_install "gcc=4:12.2.0-3" "libc6-dev=2.36-9+deb12u14"
      fi
      want=("${envtest_bins[@]}" kube-controller-manager kubelet kube-scheduler kube-proxy kubeadm pause coredns crictl)
      ;;
    sync) sync_module "$here"; return ;;
    *) die "usage: install.sh envtest|controlplane|kind|sync" ;;
  esac

  for dir in "${KUBEBUILDER_ASSETS:-}" "$("$SETUP_ENVTEST" use -i "$ENVTEST_K8S_VERSION" --bin-dir "$BIN_DIR" -p path 2>/dev/null)"; do
    if [ -n "$dir" ] && has "$dir" "${want[@]}"; then printf '%s\n' "$dir"; return; fi
  done
  src=$(provide "${want[@]}")
  dir=$(cd "$BIN_DIR" && pwd)/k8s/$(basename "$src")
  publish "$src" "$dir"
  has "$dir" "${want[@]}" || die "$dir lacks $(missing "$dir" "${want[@]}")"
  say "ready in $dir"
  printf '%s\n' "$dir"
}

main "$@"
