#!/usr/bin/env bash
# e2e-kind.sh runs the scenarios against the operator deployed into a kind cluster, as in
# production: its image, its Deployment, its ServiceAccount and exactly config/rbac.
# make test-e2e-kind calls it; the variables below come from the Makefile, MANIFESTS being
# config/default rendered with the image $IMG (the Makefile's render, as build-installer writes it).
#
# The API server keeps an audit log of every write (testing/e2e/audit-policy.yaml) in a directory of
# this machine mounted into the node: the scenarios count the operator's writes from it.
#
# On failure it prints the operator's log and the cluster's events and exports kind's logs to
# $REPORTS/kind-logs. The cluster and the port-forward are removed on success, failure or Ctrl-C.
set -euo pipefail
: "${KIND:?}" "${KIND_NODE_IMAGE:?}" "${KUBECTL:?}" "${IMG:?}" "${REPORTS:?}" "${MANIFESTS:?}"
cluster=${KIND_CLUSTER:-operator-demo-e2e}
namespace=operator-demo-system
deployment=operator-demo-controller-manager
metrics_port=${E2E_METRICS_PORT:-18443}
kubeconfig=$(mktemp)
audit=$(mktemp -d)
pf_pid=""

cleanup() {
  [ -n "$pf_pid" ] && kill "$pf_pid" 2>/dev/null || true
  "$KIND" delete cluster --name "$cluster" >/dev/null 2>&1 || true
  rm -rf "$kubeconfig" "$audit" 2>/dev/null || true
}
diagnose() {
  echo "--- operator log"
  "$KUBECTL" --kubeconfig "$kubeconfig" -n "$namespace" logs "deployment/$deployment" --tail=200 || true
  echo "--- events, all namespaces"
  "$KUBECTL" --kubeconfig "$kubeconfig" get events -A --sort-by=.lastTimestamp | tail -n 100 || true
  "$KIND" export logs --name "$cluster" "$REPORTS/kind-logs" || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$REPORTS"
cp testing/e2e/audit-policy.yaml "$audit/policy.yaml"
# kubeadm v1beta4 lists the API server's extra arguments: append to kind's, not replace them.
"$KIND" create cluster --name "$cluster" --image "$KIND_NODE_IMAGE" --kubeconfig "$kubeconfig" --wait 120s --config - <<EOF
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
- role: control-plane
  extraMounts:
  - hostPath: $audit
    containerPath: /etc/kubernetes/audit
kubeadmConfigPatchesJSON6902:
- group: kubeadm.k8s.io
  version: v1beta4
  kind: ClusterConfiguration
  patch: |
    - {op: add, path: /apiServer/extraArgs/-, value: {name: audit-policy-file, value: /etc/kubernetes/audit/policy.yaml}}
    - {op: add, path: /apiServer/extraArgs/-, value: {name: audit-log-path, value: /etc/kubernetes/audit/audit.log}}
    - {op: add, path: /apiServer/extraVolumes, value: [{name: audit, hostPath: /etc/kubernetes/audit, mountPath: /etc/kubernetes/audit, pathType: DirectoryOrCreate}]}
EOF
# The API server writes its audit log as root, readable by root alone.
chmod a+r "$audit/audit.log" 2>/dev/null || sudo chmod a+r "$audit/audit.log"
docker build -t "$IMG" .
"$KIND" load docker-image "$IMG" --name "$cluster"
"$KUBECTL" --kubeconfig "$kubeconfig" apply -f "$MANIFESTS"
"$KUBECTL" --kubeconfig "$kubeconfig" -n "$namespace" rollout status "deployment/$deployment" --timeout=120s

"$KUBECTL" --kubeconfig "$kubeconfig" -n "$namespace" port-forward "service/$deployment-metrics-service" "$metrics_port:8443" >/dev/null &
pf_pid=$!
# Ready once the forwarded port answers (401: no token, which is as it should be).
for _ in $(seq 60); do
  curl -sk -o /dev/null "https://127.0.0.1:$metrics_port/metrics" && break
  sleep 0.5
done

if ! KUBECONFIG="$kubeconfig" SCENARIOS_TIER=e2e E2E_PROVIDER=kind E2E_METRICS_URL="https://127.0.0.1:$metrics_port/metrics" \
  E2E_MANIFESTS="$MANIFESTS" E2E_AUDIT_LOG="$audit/audit.log" \
  go test ./scenarios/ -count=1 -timeout 20m -args -ginkgo.junit-report="$REPORTS/e2e.xml"; then
  diagnose
  exit 1
fi
