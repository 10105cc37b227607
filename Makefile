# operator-demo: the kubebuilder v4 scaffold's Makefile plus the test pyramid's tiers. The tools that
# serve only this repository are in testing/workshop/workshop.mk, included at the end.

# Image URL to use all building/pushing image targets; config/manager names operator-demo:dev.
IMG ?= operator-demo:dev

# PREVIOUS_RELEASE: the release the upgrade scenarios start from and roll back to
# (scenarios/upgrade), the last commit whose CRD served v1alpha1 alone, written with merge patches
# (before issue #53's v1beta1); make previous-release builds it from a worktree of this
# repository's history, in bin/previous/.
PREVIOUS_RELEASE ?= bad3ab27973934233877315f4eddde398e857c5f
# INTERIM_RELEASE: the last commit that served v1beta1 while it stored v1alpha1, the rollback
# target that needs no migration (scenarios/upgrade's Interim rollback); built beside it.
INTERIM_RELEASE ?= ca597a498be567bec67c60ec20e4d769ecaab9e8

# CONTAINER_TOOL defines the container tool to be used for building images (docker, podman).
CONTAINER_TOOL ?= docker

# The supported Kubernetes minors, the default first, each with its source release and kind node.
KUBERNETES_VERSIONS_FILE := hack/k8sbin/kubernetes-versions.txt
# kubernetes-version MINOR,FIELD: field 2 (the source release) or 3 (kind's node image) of MINOR.
kubernetes-version = $(shell awk '$$1 == "$(1)" {print $$$(2)}' $(KUBERNETES_VERSIONS_FILE))
# ENVTEST_K8S_VERSION: the minor the tests run on, go.mod's k8s.io/api's (v0.37.2: 1.37) or the file's;
# exported: the scenarios leave out what an older minor lacks (testing/e2e/tiers).
GO_MOD_K8S_MINOR := $(shell go list -m -f '{{.Version}}' k8s.io/api | sed -E 's/^v0\.([0-9]+)\..*/1.\1/')
export ENVTEST_K8S_VERSION ?= $(GO_MOD_K8S_MINOR)
K8S_VERSION ?= $(call kubernetes-version,$(ENVTEST_K8S_VERSION),2)
KIND_NODE_IMAGE ?= $(call kubernetes-version,$(ENVTEST_K8S_VERSION),3)

# The e2e tier's cluster: kind or local; unset, kind where `docker info` answers, else local.
E2E_PROVIDER ?=
GO_TEST_FLAGS ?= -race
# A race-enabled binary pauses 1 s at exit for late races; the tests stop their goroutines first.
export GORACE ?= atexit_sleep_ms=0
# GINKGO_FLAGS build the scenario binary; GINKGO_RUN_FLAGS go to the run (e.g. --coverprofile=F).
GINKGO_FLAGS ?= --race
GINKGO_RUN_FLAGS ?=
# Ginkgo processes sharing one control plane: specs mostly wait, so more than cores pay off.
SCENARIO_PROCS ?= 6
REPORTS ?= $(CURDIR)/reports

# Setting SHELL to bash allows bash commands to be executed by recipes.
# Options are set to exit when a recipe line exits non-zero or a piped command fails.
SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec
.DEFAULT_GOAL := help

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-20s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

# controller-gen writes into bin/generated; copy-changed copies each file of directory $(1) into $(2)
# only if its content changed: go test keys the files a test opens (the CRD) on their mtime.
copy-changed = for f in $(1)/*; do cmp -s "$$f" "$(2)/$$(basename "$$f")" || cp "$$f" "$(2)/"; done
.PHONY: manifests
manifests: controller-gen ## Generate the CRD and RBAC manifests under config/ from the Go markers.
	@rm -rf $(LOCALBIN)/generated
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/...;./controllers/..." output:crd:artifacts:config=$(LOCALBIN)/generated/crd output:rbac:artifacts:config=$(LOCALBIN)/generated/rbac
	@$(call copy-changed,$(LOCALBIN)/generated/crd,config/crd/bases)
	@$(call copy-changed,$(LOCALBIN)/generated/rbac,config/rbac)

.PHONY: generate
generate: controller-gen ## Generate the API types' DeepCopy methods and apply configurations (for server-side apply).
	$(CONTROLLER_GEN) object applyconfiguration paths="./api/..."

.PHONY: fmt
fmt: ## Run go fmt against code.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet against code.
	go vet ./...

.PHONY: test
test: manifests generate fmt vet setup-envtest ## Regenerate and vet, then the unit and envtest tiers, with the race detector: go test's packages in one run, then the scenarios.
	go test $(GO_TEST_FLAGS) $(GO_TEST_PACKAGES)
	$(scenarios)

# go test's packages, the unit tier: all but the scenario suites (run by Ginkgo, and on e2e).
GO_TEST_PACKAGES = $(shell go list ./api/... ./cmd/... ./controllers/... ./scenarios/samples/...)

.PHONY: test-unit
test-unit: ## Unit tier: pure functions and Reconcile against a fake client. No control plane.
	go test $(GO_TEST_FLAGS) $(GO_TEST_PACKAGES)

.PHONY: test-envtest
test-envtest: setup-envtest ## Envtest tier: the scenarios on a real kube-apiserver + etcd, in parallel (ENVTEST_K8S_VERSION=1.35: another minor).
	$(scenarios)

.PHONY: test-harness
test-harness: setup-envtest ## The harness's own tests (testing/, a Go module of its own, which make test does not run): some start a control plane.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -C testing $(GO_TEST_FLAGS) ./...

# scenarios builds the scenario binary (go's cache decides; into bin/, as in scenarios/ it would be
# taken for a scenario) and runs it in SCENARIO_PROCS Ginkgo processes sharing one control plane.
SCENARIOS_TEST = $(CURDIR)/bin/scenarios.test
build-scenarios = go tool ginkgo build $(GINKGO_FLAGS) -o $(SCENARIOS_TEST) ./scenarios
define scenarios
@mkdir -p $(REPORTS)
$(build-scenarios)
KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go tool ginkgo $(GINKGO_RUN_FLAGS) $(if $(CI),--no-color) --procs=$(SCENARIO_PROCS) \
	--output-dir=$(REPORTS) --junit-report=envtest.xml $(SCENARIOS_TEST)
endef

.PHONY: test-e2e
test-e2e: ## E2e tier: the scenarios on a real cluster (E2E_PROVIDER=kind or local; unset: kind where Docker answers).
	@provider="$(E2E_PROVIDER)"; \
	if [ -z "$$provider" ]; then provider=$$(docker info >/dev/null 2>&1 && echo kind || echo local); fi; \
	echo "test-e2e: on $$provider"; \
	$(MAKE) --no-print-directory test-e2e-$$provider

.PHONY: test-e2e-local
test-e2e-local: linux-only build previous-release setup-controlplane ## E2e tier where Docker is absent: the scenarios on a local control plane with a garbage collector, the manager binary playing its Deployment; then scenarios/upgrade, from PREVIOUS_RELEASE (and INTERIM_RELEASE).
	@mkdir -p $(REPORTS)
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" E2E_OPERATOR_BINARY=$(LOCALBIN)/manager SCENARIOS_TIER=e2e E2E_PROVIDER=local \
		go test ./scenarios/ -count=1 -timeout 20m -args -ginkgo.junit-report=$(REPORTS)/e2e.xml
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" E2E_OPERATOR_BINARY=$(LOCALBIN)/manager E2E_PREVIOUS_RELEASE=$(LOCALBIN)/previous/$(PREVIOUS_RELEASE) E2E_INTERIM_RELEASE=$(LOCALBIN)/previous/$(INTERIM_RELEASE) \
		go test ./scenarios/upgrade/ -count=1 -timeout 10m -args -ginkgo.junit-report=$(REPORTS)/e2e-upgrade.xml

.PHONY: test-e2e-kind
test-e2e-kind: setup-envtest kustomize kind ## E2e tier on kind: the image IMG, deployed as build-installer renders it; then scenarios/deployment.
	@mkdir -p $(REPORTS) $(LOCALBIN)/e2e-kind
	$(call render,$(LOCALBIN)/e2e-kind/install.yaml)
	KIND=$(KIND) KIND_NODE_IMAGE=$(KIND_NODE_IMAGE) IMG=$(IMG) REPORTS=$(REPORTS) MANIFESTS=$(LOCALBIN)/e2e-kind/install.yaml \
		testing/e2e/kind.sh

# The workshop's module is linted where it is: a team may remove it (testing/workshop/workshop.mk).
GO_MODULES = . testing $(wildcard testing/workshop)

.PHONY: lint
lint: golangci-lint actionlint cross-vet ## golangci-lint on the Go code (each module), actionlint on the GitHub workflows, go vet for macOS and Windows.
	for m in $(GO_MODULES); do (cd $$m && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...); done
	$(ACTIONLINT)

.PHONY: lint-fix
lint-fix: golangci-lint ## golangci-lint, fixing what it can.
	for m in $(GO_MODULES); do (cd $$m && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml --fix ./...); done

CROSS_PLATFORMS ?= darwin/arm64 windows/amd64

.PHONY: cross-vet
cross-vet: ## go vet every package and its tests for CROSS_PLATFORMS (macOS, Windows): Linux-only code sits behind a build tag.
	@GO_MODULES="$(GO_MODULES)" hack/cross-vet.sh $(CROSS_PLATFORMS)

.PHONY: verify
verify: ## Regenerate everything generated, tidy go.mod, check every Markdown link; fail if the tree then differs from git, naming the files.
	@GO_MODULES="$(GO_MODULES)" hack/verify.sh

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build manager binary.
	go build -o $(LOCALBIN)/manager ./cmd

.PHONY: previous-release
previous-release: ## Check PREVIOUS_RELEASE and INTERIM_RELEASE out of this repository's history, each into a worktree, bin/previous/<commit>, and build its manager there, bin/previous/<commit>/bin/manager.
	@for c in $(PREVIOUS_RELEASE) $(INTERIM_RELEASE); do \
	  git cat-file -e "$$c^{commit}" 2>/dev/null || { echo "previous-release: $$c is not in this clone's history (a shallow clone? git fetch --unshallow)" >&2; exit 1; }; \
	  [ -d $(LOCALBIN)/previous/$$c ] || { git worktree prune && git worktree add --detach $(LOCALBIN)/previous/$$c $$c; } || exit 1; \
	  echo "go build -C $(LOCALBIN)/previous/$$c -o bin/manager ./cmd"; go build -C $(LOCALBIN)/previous/$$c -o bin/manager ./cmd || exit 1; \
	done

.PHONY: run
run: manifests generate fmt vet ## Run a controller from your host, against the cluster in your kubeconfig.
	go run ./cmd --metrics-bind-address=0 --health-probe-bind-address=0

.PHONY: docker-build
docker-build: ## Build docker image with the manager.
	$(CONTAINER_TOOL) build -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push docker image with the manager.
	$(CONTAINER_TOOL) push $(IMG)

# PLATFORMS: what docker-buildx builds the image IMG for, and pushes (needs docker buildx, BuildKit).
PLATFORMS ?= linux/arm64,linux/amd64,linux/s390x,linux/ppc64le
.PHONY: docker-buildx
docker-buildx: ## Build and push docker image for the manager for cross-platform support.
	# copy existing Dockerfile and insert --platform=${BUILDPLATFORM} into Dockerfile.cross, and preserve the original Dockerfile
	sed -e '1 s/\(^FROM\)/FROM --platform=\$$\{BUILDPLATFORM\}/; t' -e ' 1,// s//FROM --platform=\$$\{BUILDPLATFORM\}/' Dockerfile > Dockerfile.cross
	- $(CONTAINER_TOOL) buildx create --name operator-demo-builder
	$(CONTAINER_TOOL) buildx use operator-demo-builder
	- $(CONTAINER_TOOL) buildx build --push --platform=$(PLATFORMS) --tag $(IMG) -f Dockerfile.cross .
	- $(CONTAINER_TOOL) buildx rm operator-demo-builder
	rm Dockerfile.cross

.PHONY: build-installer
build-installer: manifests kustomize ## Generate a consolidated YAML with CRDs and deployment (dist/install.yaml, the image IMG).
	@mkdir -p dist
	$(call render,dist/install.yaml)

# render writes config/default with the image $(IMG) to the file $(1), through a kustomization of its
# own under bin/: the scaffold's `kustomize edit set image` would rewrite config/manager instead.
define render
@mkdir -p $(CURDIR)/bin; overlay=$$(mktemp -d "$(CURDIR)/bin/render.XXXXXX"); trap 'rm -rf "$$overlay"' EXIT; \
	printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../config/default\n' > "$$overlay/kustomization.yaml"; \
	(cd "$$overlay" && $(KUSTOMIZE) edit set image operator-demo=$(IMG)); \
	mkdir -p "$$(dirname $(1))"; \
	$(KUSTOMIZE) build "$$overlay" > $(1); \
	echo "rendered config/default with image $(IMG) into $(1)"
endef

##@ Deployment

.PHONY: install
install: manifests kustomize ## Install CRDs into the K8s cluster specified in ~/.kube/config.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply -f -

.PHONY: uninstall
uninstall: kustomize ## Uninstall CRDs (and with them every Sample) from the K8s cluster specified in ~/.kube/config.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy controller (config/default, the image IMG) to the K8s cluster specified in ~/.kube/config.
	$(call render,$(LOCALBIN)/deploy/install.yaml)
	$(KUBECTL) apply -f $(LOCALBIN)/deploy/install.yaml

.PHONY: undeploy
undeploy: kustomize ## Undeploy controller from the K8s cluster specified in ~/.kube/config.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found -f -

##@ Dependencies

## Location to install dependencies to
LOCALBIN ?= $(CURDIR)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

## Tool Binaries, each file named with its version
KUBECTL ?= kubectl
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
SETUP_ENVTEST ?= $(LOCALBIN)/setup-envtest-$(SETUP_ENVTEST_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
ACTIONLINT ?= $(LOCALBIN)/actionlint-$(ACTIONLINT_VERSION)
KIND ?= $(LOCALBIN)/kind-$(KIND_VERSION)
# act sets ACT=true in the steps it runs: this variable is named otherwise.
ACTIONS_RUNNER ?= $(LOCALBIN)/act-$(ACT_VERSION)

## Tool Versions, pinned here alone; `go install`ed, not go.mod tools, which would bring their
## dependencies into the operator's go.mod. ginkgo, a test dependency anyway, is `go tool ginkgo`.
KUSTOMIZE_VERSION ?= v5.8.1
CONTROLLER_TOOLS_VERSION ?= v0.23.0
SETUP_ENVTEST_VERSION ?= v0.25.1
GOLANGCI_LINT_VERSION ?= v2.15.0
ACTIONLINT_VERSION ?= v1.7.12
KIND_VERSION ?= v0.33.0
ACT_VERSION ?= v0.2.89

# The control plane's installer (downloads, else builds from Go module sources), asked as a recipe
# runs: ENVTEST_ASSETS, etcd + kube-apiserver + kubectl; CONTROLPLANE_ASSETS, + kube-controller-manager.
K8SBIN = K8S_VERSION=$(K8S_VERSION) ENVTEST_K8S_VERSION=$(ENVTEST_K8S_VERSION) \
	SETUP_ENVTEST=$(SETUP_ENVTEST) BIN_DIR=$(LOCALBIN) hack/k8sbin/install.sh
ENVTEST_ASSETS = $$($(K8SBIN) envtest)
CONTROLPLANE_ASSETS = $$($(K8SBIN) controlplane)

.PHONY: setup-envtest
setup-envtest: $(SETUP_ENVTEST) ## Provide etcd, kube-apiserver, kubectl in bin/k8s/ and print their directory.
	@$(K8SBIN) envtest

.PHONY: setup-controlplane
setup-controlplane: $(SETUP_ENVTEST) ## setup-envtest plus kube-controller-manager, for the local e2e cluster.
	@$(K8SBIN) controlplane

.PHONY: linux-only
linux-only:
	@[ "$$(go env GOOS)" = linux ] || { echo "$(MAKECMDGOALS): the local cluster needs Linux (kube-controller-manager is built for Linux alone); on macOS, make test-e2e E2E_PROVIDER=kind with Docker Desktop runs the e2e tier"; exit 1; }

.PHONY: k8sbin-sync
k8sbin-sync: override ENVTEST_K8S_VERSION = $(GO_MOD_K8S_MINOR)
k8sbin-sync: override K8S_VERSION = $(call kubernetes-version,$(GO_MOD_K8S_MINOR),2)
k8sbin-sync: $(SETUP_ENVTEST) ## Re-pin hack/k8sbin (the control-plane build module) to the default Kubernetes version, go.mod's.
	@$(K8SBIN) sync

.PHONY: kubernetes-versions
kubernetes-versions: ## Print the supported Kubernetes minors, the default first, as JSON (the GitHub workflow's matrices).
	@awk '!/^#/ && NF {printf "%s\"%s\"", (n++ ? "," : "["), $$1} END {print "]"}' $(KUBERNETES_VERSIONS_FILE)

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Download kustomize locally if necessary.
$(KUSTOMIZE): | $(LOCALBIN)
	$(call go-install-tool,$(KUSTOMIZE),sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Download controller-gen locally if necessary.
$(CONTROLLER_GEN): | $(LOCALBIN)
	$(call go-install-tool,$(CONTROLLER_GEN),sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

$(SETUP_ENVTEST): | $(LOCALBIN)
	$(call go-install-tool,$(SETUP_ENVTEST),sigs.k8s.io/controller-runtime/tools/setup-envtest,$(SETUP_ENVTEST_VERSION))

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Download golangci-lint locally if necessary.
$(GOLANGCI_LINT): | $(LOCALBIN)
	$(call go-install-tool,$(GOLANGCI_LINT),github.com/golangci/golangci-lint/v2/cmd/golangci-lint,$(GOLANGCI_LINT_VERSION))

.PHONY: actionlint
actionlint: $(ACTIONLINT) ## Download actionlint locally if necessary.
$(ACTIONLINT): | $(LOCALBIN)
	$(call go-install-tool,$(ACTIONLINT),github.com/rhysd/actionlint/cmd/actionlint,$(ACTIONLINT_VERSION))

.PHONY: kind
kind: $(KIND) ## Download kind locally if necessary.
$(KIND): | $(LOCALBIN)
	$(call go-install-tool,$(KIND),sigs.k8s.io/kind,$(KIND_VERSION))

.PHONY: act
act: $(ACTIONS_RUNNER) ## Download act, the GitHub Actions runner .ci/run runs the workflow with, locally if necessary; print its path.
	@echo $(ACTIONS_RUNNER)
$(ACTIONS_RUNNER): | $(LOCALBIN)
	$(call go-install-tool,$(ACTIONS_RUNNER),github.com/nektos/act,$(ACT_VERSION))

# go-install-tool installs package $(2) at version $(3) as the versioned file $(1).
define go-install-tool
@set -e; \
echo "installing $(2)@$(3)"; \
rm -f $(1); \
GOBIN=$(LOCALBIN) go install $(2)@$(3); \
mv $(LOCALBIN)/$$(basename $(2) | sed 's/^v[0-9]*$$/$(notdir $(patsubst %/,%,$(dir $(2))))/') $(1)
endef

##@ Where no registry answers

.PHONY: kind-images
kind-images: $(SETUP_ENVTEST) ## Where no registry answers (.ci/run's machines): make kind's node image and the Dockerfile's bases from Go module sources and Debian (Docker, root); prints the node image.
	@assets=$$($(K8SBIN) kind) && export K8S_VERSION=$(K8S_VERSION) KIND_VERSION=$(KIND_VERSION) && \
	hack/k8sbin/kind-images.sh dockerfile && hack/k8sbin/kind-images.sh node "$$assets"

# The workshop's targets, where it is: a team may remove it, and this line with it.
-include testing/workshop/workshop.mk
