#!/usr/bin/env bash
# rollback.sh STEP [ARGUMENT]: the steps of operator-demo's rollbacks from this release, which
# docs/upgrades.md explains. Run them in this order. A step run again does what is left, or says
# why it cannot; a step that fails says why, and what to do.
#
# Back to the release before v1beta1 (N-1), which neither serves nor converts v1beta1 (Rollback):
#
#   rollback.sh store-v1alpha1                  # this release still running, and converting
#   rollback.sh rewrite > samples.txt
#   kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas 0
#   rollback.sh check samples.txt
#   rollback.sh stored-versions
#   rollback.sh hand-back
#   kubectl apply -k <the release before>/config/default
#
# Back to the interim release, which serves v1beta1 while it stores v1alpha1 (Interim rollback):
#
#   kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas 0
#   rollback.sh hand-back
#   kubectl apply -k <the interim release>/config/default
#
# It runs kubectl as it finds it (PATH, KUBECONFIG), as a cluster administrator, and openssl. The
# scenarios Rollback and Interim rollback (scenarios/upgrade) run these steps.
set -euo pipefail

crd=samples.demo.example.com
samples=samples.v1alpha1.demo.example.com
step=${1:-}
fail() {
  echo "rollback.sh $step: $*" >&2
  exit 1
}

# announced prints the storageVersionHash that the API server's discovery announces for samples.
announced() {
  kubectl get --raw /apis/demo.example.com/v1alpha1 | grep -o '"storageVersionHash":"[^"]*"' | cut -d'"' -f4
}

# applied prints, for each ConfigMap that this release has applied, its namespace, its name and
# the index of its apply entry in managedFields.
applied() {
  kubectl get configmaps -A -l app.kubernetes.io/managed-by=operator-demo --show-managed-fields -o go-template='{{range .items}}{{$cm := .metadata}}{{range $i, $e := .metadata.managedFields}}{{if and (eq $e.manager "operator-demo") (eq $e.operation "Apply")}}{{$cm.namespace}} {{$cm.name}} {{$i}}{{"\n"}}{{end}}{{end}}{{end}}'
}

case "$step" in
store-v1alpha1)
  # Store v1alpha1 again. The API server takes a moment to store in a new version after its CRD
  # changes, and a Sample rewritten before then is stored as it was: wait until its discovery
  # announces v1alpha1's storage version hash (the first 8 bytes of the SHA-256 of
  # group/version/kind, in base64), as the storage version migrator does.
  command -v openssl >/dev/null || fail "needs openssl, to know v1alpha1's storage version hash"
  want=$(printf %s demo.example.com/v1alpha1/Sample | openssl dgst -sha256 -binary | head -c 8 | base64)
  kubectl patch crd "$crd" --type json -p '[{"op":"test","path":"/spec/versions/0/name","value":"v1alpha1"},{"op":"replace","path":"/spec/versions/0/storage","value":true},{"op":"replace","path":"/spec/versions/1/storage","value":false}]' >&2 ||
    fail "the CRD $crd cannot store v1alpha1 (above): is it this release's, v1alpha1 first?"
  now=
  for _ in $(seq 60); do
    if now=$(announced) && [ "$now" = "$want" ]; then exit 0; fi
    sleep 1
  done
  fail "after 60 s the API server announces ${now:-no} storage version hash for samples, not v1alpha1's $want: run this step again"
  ;;
rewrite)
  # Rewrite every Sample, so that the API server stores each as v1alpha1; print how many, then
  # each one's namespace and name, for check. Read them all again after a failure: this release
  # may write a status meanwhile, and the replace then conflicts.
  for attempt in 1 2 3 4 5; do
    if kubectl get "$samples" -A -o json | kubectl replace -f - >&2; then
      names=$(kubectl get "$samples" -A -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.name}{"\n"}{end}') ||
        fail "the Samples, rewritten, cannot be listed (above): run this step again"
      echo "# $(printf '%s' "$names" | grep -c .) Samples"
      [ -z "$names" ] || printf '%s\n' "$names"
      exit 0
    fi
    echo "rollback.sh rewrite: attempt $attempt of 5 failed (above)" >&2
  done
  fail "kubectl failed five times (above). A conflict each time: this release writes the Samples faster than they are rewritten. A Sample that cannot be read through v1alpha1 (stored as v1beta1 while no conversion webhook answers): this release must run and convert until the rewrite is done"
  ;;
check)
  # With this release and its conversion webhook stopped, read each Sample rewrite named, by name
  # (a list may come from the API server's cache): one still stored as v1beta1 cannot be read. It
  # first proves that no conversion webhook answers: with one, every read succeeds.
  file=${2:-}
  [ -f "$file" ] || fail "usage: rollback.sh check SAMPLES_FILE, the file that rewrite printed"
  want=$(sed -n '1s/^# \([0-9][0-9]*\) Samples$/\1/p' "$file")
  [ -n "$want" ] || fail "$file does not start with rewrite's count: write it with rollback.sh rewrite > $file"
  named=0
  unread=0
  while read -r ns name; do
    case "$ns" in '#'*) continue ;; esac
    if [ "$named" = 0 ]; then
      # A create through v1beta1, dry run, needs the webhook to convert it to v1alpha1, stored.
      if said=$(printf 'apiVersion: demo.example.com/v1beta1\nkind: Sample\nmetadata: {name: rollback-check, namespace: %s}\nspec: {data: {check: "yes"}}\n' "$ns" |
        kubectl create --dry-run=server -f - 2>&1); then
        fail "the conversion webhook still answers: scale this release to 0 first (docs/upgrades.md)"
      fi
      case "$said" in
      *"conversion webhook"*) ;;
      *) fail "a dry-run create through v1beta1 failed, but not in the conversion webhook: $said" ;;
      esac
    fi
    named=$((named + 1))
    kubectl -n "$ns" get "$samples" "$name" -o name >&2 || {
      echo "NOT YET: $ns/$name" >&2
      unread=$((unread + 1))
    }
  done <"$file"
  [ "$named" = "$want" ] || fail "$file names $named Samples, where rewrite counted $want: write it again with rollback.sh rewrite"
  [ "$unread" = 0 ] || fail "$unread of $named Samples are still stored as v1beta1: scale this release back up, and run rewrite again"
  ;;
stored-versions)
  # Name v1alpha1 alone as stored, so that the API server accepts a CRD without v1beta1.
  kubectl patch crd "$crd" --subresource status --type merge -p '{"status":{"storedVersions":["v1alpha1"]}}' >&2 ||
    fail "the CRD $crd's status cannot be patched (above)"
  ;;
hand-back)
  # In each ConfigMap that this release applied, name its owner, the Sample, in v1alpha1 (the
  # garbage collector resolves an owner through the version its reference names), and give what
  # this release applied back to the older releases' field manager, "manager", operation Update:
  # the handover, backwards. This release must not run: it would apply the ConfigMap again.
  list=$(applied) || fail "the ConfigMaps cannot be listed (above)"
  while read -r ns name i; do
    [ -n "$ns" ] || continue
    kubectl -n "$ns" patch configmap "$name" --type json -p "[{\"op\":\"test\",\"path\":\"/metadata/ownerReferences/0/kind\",\"value\":\"Sample\"},{\"op\":\"replace\",\"path\":\"/metadata/ownerReferences/0/apiVersion\",\"value\":\"demo.example.com/v1alpha1\"},{\"op\":\"test\",\"path\":\"/metadata/managedFields/$i/manager\",\"value\":\"operator-demo\"},{\"op\":\"replace\",\"path\":\"/metadata/managedFields/$i/manager\",\"value\":\"manager\"},{\"op\":\"replace\",\"path\":\"/metadata/managedFields/$i/operation\",\"value\":\"Update\"}]" >&2 ||
      fail "ConfigMap $ns/$name cannot be handed back (above): its first owner must be its Sample; run this step again"
  done <<<"$list"
  left=$(applied) || fail "the ConfigMaps cannot be listed again (above)"
  [ -z "$left" ] || fail "ConfigMaps applied again since: is this release still running? Scale it to 0, and run this step again: $left"
  ;;
*)
  fail "usage: rollback.sh store-v1alpha1 | rewrite | check SAMPLES_FILE | stored-versions | hand-back (docs/upgrades.md)"
  ;;
esac
