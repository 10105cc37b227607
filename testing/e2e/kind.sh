#!/usr/bin/env bash
# kind.sh runs the scenarios against the operator deployed into a kind cluster, as in
# production: its image, its Deployment, its ServiceAccount and exactly config/rbac; then
# scenarios/deployment. make test-e2e-kind calls it; the variables below come from the Makefile,
# MANIFESTS being config/default rendered with the image $IMG (as build-installer writes it).
#
# Only the cluster and the image are this script's: it creates the cluster, its API server keeping
# an audit log of every write (testing/e2e/audit-policy.yaml) in a directory of this machine
# mounted into the node, builds the image with Docker and loads it into the node. The rest is the
# suites' provider (testing/e2e, Deploy). The same runs on .ci/run's machines, which have no
# registry (docs/testing.md: make kind-images makes the images, KIND_NODE_IMAGE names the node's).
#
# On failure it exports kind's logs (the node's, every Pod's) to $REPORTS/kind-logs. The cluster is
# removed on success, failure or Ctrl-C, and before creating it if an interrupted run left it.
set -euo pipefail
: "${KIND:?}" "${KIND_NODE_IMAGE:?}" "${IMG:?}" "${REPORTS:?}" "${MANIFESTS:?}"
cluster=${KIND_CLUSTER:-operator-demo-e2e}
kubeconfig=$(mktemp)
audit=$(mktemp -d)

cleanup() {
  "$KIND" delete cluster --name "$cluster" >/dev/null 2>&1 || true
  rm -rf "$kubeconfig" "$audit" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$REPORTS"
# A run stopped before its trap (the machine halted mid-run) leaves its node behind, in an engine
# whose containers outlive it: remove it, or kind refuses to create the cluster again. kind's
# delete is idempotent, and says which nodes it deleted.
"$KIND" delete cluster --name "$cluster"
cp testing/e2e/audit-policy.yaml "$audit/policy.yaml"
# kubeadm v1beta4 lists the API server's extra arguments: append to kind's, not replace them.
"$KIND" create cluster --name "$cluster" --image "$KIND_NODE_IMAGE" --kubeconfig "$kubeconfig" --wait 120s --config - <<EOF2
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
- role: control-plane
  extraMounts:
  - hostPath: $audit
    containerPath: /etc/kubernetes/audit
# The kubelet refuses a cgroup v1 host from Kubernetes 1.35 on unless told otherwise; cgroup v2
# hosts (GitHub's runners) are unaffected.
kubeadmConfigPatches:
- |
  kind: KubeletConfiguration
  failCgroupV1: false
# kind v0.33.0 writes kubeadm's v1beta3 config for Kubernetes 1.35 and v1beta4 from 1.36 on, and
# applies only the patch of the version it writes: one for each (extraArgs a map, then a list).
kubeadmConfigPatchesJSON6902:
- group: kubeadm.k8s.io
  version: v1beta3
  kind: ClusterConfiguration
  patch: |
    - {op: add, path: /apiServer/extraArgs/audit-policy-file, value: /etc/kubernetes/audit/policy.yaml}
    - {op: add, path: /apiServer/extraArgs/audit-log-path, value: /etc/kubernetes/audit/audit.log}
    - {op: add, path: /apiServer/extraVolumes, value: [{name: audit, hostPath: /etc/kubernetes/audit, mountPath: /etc/kubernetes/audit, pathType: DirectoryOrCreate}]}
- group: kubeadm.k8s.io
  version: v1beta4
  kind: ClusterConfiguration
  patch: |
    - {op: add, path: /apiServer/extraArgs/-, value: {name: audit-policy-file, value: /etc/kubernetes/audit/policy.yaml}}
    - {op: add, path: /apiServer/extraArgs/-, value: {name: audit-log-path, value: /etc/kubernetes/audit/audit.log}}
    - {op: add, path: /apiServer/extraVolumes, value: [{name: audit, hostPath: /etc/kubernetes/audit, mountPath: /etc/kubernetes/audit, pathType: DirectoryOrCreate}]}
EOF2
[ -f "$audit/audit.log" ] || {
  echo "kind.sh: the API server keeps no audit log ($audit/audit.log): kind's kubeadm config took neither audit patch (docker exec $cluster-control-plane cat /kind/kubeadm.conf)" >&2
  exit 1
}
# The API server writes its audit log as root, readable by root alone.
chmod a+r "$audit/audit.log" 2>/dev/null || sudo chmod a+r "$audit/audit.log"
docker build -t "$IMG" .
"$KIND" load docker-image "$IMG" --name "$cluster"

# The scenarios, then what config/ promises of the deployed operator (scenarios/deployment).
export KUBECONFIG="$kubeconfig" E2E_MANIFESTS="$MANIFESTS" E2E_AUDIT_LOG="$audit/audit.log" E2E_KIND_NODE="$cluster-control-plane"
if ! { SCENARIOS_TIER=e2e E2E_PROVIDER=kind go test ./scenarios/ -count=1 -timeout 20m -args -ginkgo.junit-report="$REPORTS/e2e.xml" &&
  go test ./scenarios/deployment/ -count=1 -timeout 20m -args -ginkgo.junit-report="$REPORTS/deployment.xml"; }; then
  "$KIND" export logs --name "$cluster" "$REPORTS/kind-logs" || true
  exit 1
fi
