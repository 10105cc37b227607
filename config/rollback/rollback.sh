#!/usr/bin/env bash
# rollback.sh STEP [ARGUMENT]: the steps of operator-demo's rollback to the release before v1beta1,
# which docs/upgrades.md ("Rolling back to N-1") explains, in this order, each once:
#
#   rollback.sh store-v1alpha1                  # this release still running, and converting
#   rollback.sh rewrite > samples.txt
#   kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas 0
#   rollback.sh check samples.txt
#   rollback.sh stored-versions
#   rollback.sh hand-back
#   kubectl apply -k <the release before>/config/default
#
# It runs kubectl as it finds it (PATH, KUBECONFIG), as a cluster administrator. A step that
# fails says why, and what to do. The scenario Rollback (scenarios/upgrade) runs these steps.
set -euo pipefail

crd=samples.demo.example.com
samples=samples.v1alpha1.demo.example.com
fail() { echo "rollback.sh $step: $*" >&2; exit 1; }

# announced prints the storageVersionHash the API server's discovery announces for samples.
announced() { kubectl get --raw /apis/demo.example.com/v1alpha1 | grep -o '"storageVersionHash":"[^"]*"'; }

step=${1:-}
case "$step" in
store-v1alpha1)
  # Store v1alpha1 again. The API server takes a moment to store in a new version after its CRD
  # changes, and a Sample rewritten before then is stored as it was: wait until its discovery
  # announces the new storage version, as the storage version migrator does.
  before=$(announced) || fail "discovery announces no storage version for samples"
  kubectl patch crd "$crd" --type json -p '[{"op":"test","path":"/spec/versions/0/name","value":"v1alpha1"},{"op":"replace","path":"/spec/versions/0/storage","value":true},{"op":"replace","path":"/spec/versions/1/storage","value":false}]' >&2
  for _ in $(seq 60); do
    [ "$(announced)" != "$before" ] && exit 0
    sleep 1
  done
  fail "the API server still announces $before for samples after 60 s: run this step again"
  ;;
rewrite)
  # Rewrite every Sample, so that the API server stores each as v1alpha1; print each one's
  # namespace and name, for check. A Sample this release writes meanwhile conflicts: read them all
  # again, and rewrite again.
  for _ in 1 2 3 4 5; do
    if kubectl get "$samples" -A -o json | kubectl replace -f - >&2; then
      exec kubectl get "$samples" -A -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.name}{"\n"}{end}'
    fi
  done
  fail "some Sample conflicted five times: is this release still writing it? Run this step again"
  ;;
check)
  # With this release and its conversion webhook stopped, read each Sample rewrite named, by name
  # (a list may come from the API server's cache): one still stored as v1beta1 cannot be read.
  [ -f "${2:-}" ] || fail "usage: rollback.sh check SAMPLES_FILE, the file rewrite printed"
  unread=0
  while read -r ns name; do
    kubectl -n "$ns" get "$samples" "$name" -o name >&2 || { echo "NOT YET: $ns/$name" >&2; unread=$((unread + 1)); }
  done < "$2"
  [ "$unread" = 0 ] || fail "$unread Samples are still stored as v1beta1: scale this release back up, and go back to rewrite"
  ;;
stored-versions)
  # Name v1alpha1 alone as stored, so that the API server accepts a CRD without v1beta1.
  kubectl patch crd "$crd" --subresource status --type merge -p '{"status":{"storedVersions":["v1alpha1"]}}' >&2
  ;;
hand-back)
  # In each ConfigMap of a Sample, name its owner in v1alpha1 (the garbage collector resolves an
  # owner through the version its reference names), and give what this release applied back to
  # the release before's field manager, "manager", operation Update: the handover, backwards.
  kubectl get configmaps -A -l app.kubernetes.io/managed-by=operator-demo --show-managed-fields -o go-template='{{range .items}}{{$cm := .metadata}}{{range $i, $e := .metadata.managedFields}}{{if and (eq $e.manager "operator-demo") (eq $e.operation "Apply")}}{{$cm.namespace}} {{$cm.name}} {{$i}}{{"\n"}}{{end}}{{end}}{{end}}' |
    while read -r ns name i; do
      kubectl -n "$ns" patch configmap "$name" --type json -p "[{\"op\":\"replace\",\"path\":\"/metadata/ownerReferences/0/apiVersion\",\"value\":\"demo.example.com/v1alpha1\"},{\"op\":\"test\",\"path\":\"/metadata/managedFields/$i/manager\",\"value\":\"operator-demo\"},{\"op\":\"replace\",\"path\":\"/metadata/managedFields/$i/manager\",\"value\":\"manager\"},{\"op\":\"replace\",\"path\":\"/metadata/managedFields/$i/operation\",\"value\":\"Update\"}]" >&2
    done
  ;;
*)
  fail "usage: rollback.sh store-v1alpha1 | rewrite | check SAMPLES_FILE | stored-versions | hand-back (docs/upgrades.md)"
  ;;
esac
