#!/usr/bin/env bash
# cross-vet.sh PLATFORM...: go vet every package of the operator's module, the harness's and the
# workshop's, tests included, for each GOOS/GOARCH given, so that code only Linux has (Pdeathsig,
# /proc) cannot creep into a file that macOS or Windows builds: such code sits in a _linux.go file
# or behind a build tag. make lint runs it.
set -euo pipefail
for platform in "$@"; do
  goos=${platform%/*} goarch=${platform#*/}
  # GO_MODULES: the Go modules, as the Makefile names them (the workshop's where it is).
  for module in ${GO_MODULES:?"the Go modules; run make cross-vet, which names them"}; do
    echo "cross-vet: go vet for $platform, $module"
    GOOS=$goos GOARCH=$goarch go vet -C "$module" ./...
  done
done
