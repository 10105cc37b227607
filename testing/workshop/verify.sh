#!/usr/bin/env bash
# verify.sh regenerates everything generated (the CRD and RBAC manifests, the deepcopy code, the
# scenario catalogue, go.mod and go.sum of the operator and of the workshop, testing/offline/k8sbin's pins) and fails if the tree then differs
# from what is committed, saying for each file why:
#   regenerated   it was out of date with its sources, and the regeneration just rewrote it:
#                 review the change and commit it;
#   uncommitted   the regeneration left it as it was, but it differs from what is committed:
#                 work in progress, to commit (or stash) before verifying.
# It also fails if a relative link of the Markdown pages names a file or heading that does not exist
# (testing/workshop/links). `make verify` runs it; CI's lint job runs make verify.
set -euo pipefail
cd "$(dirname "$0")/../.."
paths=(api config go.mod go.sum testing/workshop/go.mod testing/workshop/go.sum testing/offline/k8sbin scenarios)

# state prints each file under paths that differs from HEAD, with a hash of its content.
state() {
  git status --porcelain --untracked-files=all -- "${paths[@]}" | cut -c4- | sort | while read -r f; do
    if [ -e "$f" ]; then printf '%s %s\n' "$f" "$(git hash-object "$f")"; else printf '%s deleted\n' "$f"; fi
  done
}

before=$(state)
make --no-print-directory -s manifests generate catalogue >/dev/null
go mod tidy
go mod tidy -C testing/workshop
make --no-print-directory -s k8sbin-sync >/dev/null
after=$(state)
if ! links=$(go test -C testing/workshop -count=1 ./links/ 2>&1); then
  printf 'verify: links that do not resolve:\n%s\n' "$links" >&2
  exit 1
fi
[ -z "$after" ] && exit 0

echo "verify: these files differ from what is committed:" >&2
while read -r f hash; do
  if grep -qxF "$f $hash" <<<"$before"; then
    echo "  uncommitted  $f: work in progress; commit it (or stash it) before verifying" >&2
  else
    echo "  regenerated  $f: it was out of date with its sources; review the regeneration and commit it" >&2
  fi
done <<<"$after"
exit 1
