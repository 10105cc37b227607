#!/usr/bin/env bash
# cross-vet.sh PLATFORM...: go vet every package of the operator's module and the workshop's,
# tests included, for each GOOS/GOARCH given, so
# that code only Linux has (Pdeathsig, /proc) cannot creep into a file that macOS or Windows
# builds: such code sits in a _linux.go file or behind a build tag. make lint runs it.
#
# One exception, named: on Windows, controller-runtime v0.25's envtest does not compile (its
# signal_windows.go declares signalProcess twice; kubernetes-sigs/controller-runtime#3586, a
# regression of v0.25.0), so there the packages that import it, and only those, are left out,
# and listed. The operator itself (api/, controllers/, cmd/) imports no envtest.
set -euo pipefail
envtest=sigs.k8s.io/controller-runtime/pkg/envtest
for platform in "$@"; do
  goos=${platform%/*} goarch=${platform#*/}
  for module in . testing/workshop; do
    packages=$(GOOS=$goos GOARCH=$goarch go list -C "$module" ./...)
    if [ "$goos" = windows ]; then
      # Each package whose code or tests import envtest, directly or not.
      blocked=$(GOOS=$goos GOARCH=$goarch go list -C "$module" -test -f '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}' ./... |
        awk -v dep="$envtest" '{for (i = 2; i <= NF; i++) if ($i == dep) {sub(/\.test$/, "", $1); print $1; next}}' | sort -u)
      packages=$(comm -23 <(sort <<< "$packages") <(echo "$blocked"))
      echo "cross-vet: $platform, $module: left out, as they import envtest (kubernetes-sigs/controller-runtime#3586): $(echo $blocked | sed "s|$(go list -m)/||g")"
    fi
    echo "cross-vet: go vet for $platform, $module ($(wc -l <<< "$packages") packages)"
    # shellcheck disable=SC2086 # one package a word
    GOOS=$goos GOARCH=$goarch go vet -C "$module" $packages
  done
done
