#!/usr/bin/env bash
# verify.sh regenerates everything generated (the CRD and RBAC manifests, the deepcopy code, go.mod
# and go.sum of the operator and the harness, hack/k8sbin's pins) and fails if the tree then differs
# from what is committed, naming the files that differ: out of date with their sources (the
# regeneration just rewrote them: review the change and commit it), or work not yet committed. Where
# the workshop is (a team may remove it), it also regenerates the scenario catalogue and tidies the
# workshop's go.mod, and fails if a relative link of the Markdown pages names a file or heading that
# does not exist (testing/workshop/links). `make verify` runs it; CI's lint job runs make verify.
set -euo pipefail
cd "$(dirname "$0")/.."
# GO_MODULES: the Go modules, as the Makefile names them (the workshop's where it is).
paths=(api config hack/k8sbin scenarios)
for module in ${GO_MODULES:?"the Go modules; run make verify, which names them"}; do
  paths+=("$module/go.mod" "$module/go.sum")
done

# quietly WHAT COMMAND...: run COMMAND, its output kept back unless it fails: then it is printed
# whole, under WHAT, and verify fails.
quietly() {
  local what=$1 out
  shift
  if ! out=$("$@" 2>&1); then
    printf 'verify: %s failed:\n%s\n' "$what" "$out" >&2
    exit 1
  fi
}
quietly "regenerating the manifests and the deepcopy code" make --no-print-directory -s manifests generate
for module in $GO_MODULES; do
  quietly "go mod tidy of $module" go mod tidy -C "$module"
done
quietly "re-pinning hack/k8sbin" make --no-print-directory -s k8sbin-sync
# The workshop's checks, where it is: a team may remove it (testing/workshop/workshop.mk).
if [ -d testing/workshop ]; then
  quietly "regenerating the catalogue" make --no-print-directory -s catalogue
  quietly "the Markdown links check (links that do not resolve)" go test -C testing/workshop -count=1 ./links/
fi
differ=$(git status --porcelain --untracked-files=all -- "${paths[@]}")
[ -z "$differ" ] && exit 0
printf 'verify: these files differ from what is committed, regenerated now or work in progress (git diff shows how): review and commit them\n%s\n' "$differ" >&2
exit 1
