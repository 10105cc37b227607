#!/usr/bin/env bash
# e2e-kind.sh runs the scenarios against the operator deployed into a kind cluster, as in
# production: its image, its Deployment, its ServiceAccount and exactly config/rbac.
# make test-e2e-kind calls it; the variables below come from the Makefile, MANIFESTS being
# config/default rendered with the image $IMG (the Makefile's render, as build-installer writes it).
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
pf_pid=""

cleanup() {
  [ -n "$pf_pid" ] && kill "$pf_pid" 2>/dev/null || true
  "$KIND" delete cluster --name "$cluster" >/dev/null 2>&1 || true
  rm -f "$kubeconfig"
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
"$KIND" create cluster --name "$cluster" --image "$KIND_NODE_IMAGE" --kubeconfig "$kubeconfig" --wait 120s
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
  go test ./scenarios/ -count=1 -timeout 20m -args -ginkgo.junit-report="$REPORTS/e2e.xml"; then
  diagnose
  exit 1
fi
