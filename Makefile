# operator-demo: a Sample operator built envtest-first. `make help` lists the targets.

# Versions
# Tool versions, pinned here and nowhere else; the Kubernetes versions (the default, go.mod's, and
# the others supported, with the kind node image of each) are in kubernetes-versions.txt below. Each
# tool is installed by `go install tool@version` into bin/ under a versioned name (go-install-tool
# below), not as a `tool` directive of go.mod: these tools' dependencies (golangci-lint's alone
# are some 300 modules) would otherwise join the operator's go.mod and go.sum, and a bump here
# would then need a go.mod change too. ginkgo is the one exception: it is a test dependency of
# the scenarios anyway, so go.mod's version is the CLI's (`go tool ginkgo`).
CONTROLLER_TOOLS_VERSION ?= v0.23.0
SETUP_ENVTEST_VERSION    ?= v0.25.1
GOLANGCI_LINT_VERSION    ?= v2.15.0
ACTIONLINT_VERSION       ?= v1.7.12
KUSTOMIZE_VERSION        ?= v5.8.1
KIND_VERSION             ?= v0.33.0
# The yardstick of make bench-suite (a kubebuilder scaffold's make test), and the project that
# make test-harness-copy copies the harness into.
KUBEBUILDER_VERSION      ?= v4.16.0

# The Kubernetes versions the operator supports, one minor a line, the default first: for each,
# the release to build from source and kind's node image. `make kubernetes-versions` prints them.
KUBERNETES_VERSIONS_FILE := testing/k8sbin/kubernetes-versions.txt
# kubernetes-version MINOR,FIELD: field 2 (the source release) or 3 (kind's node image) of MINOR.
kubernetes-version = $(shell awk '$$1 == "$(1)" {print $$$(2)}' $(KUBERNETES_VERSIONS_FILE))

# ENVTEST_K8S_VERSION is the minor the tests run on: by default go.mod's k8s.io/api minor (v0.37.2
# -> 1.37), else any of the file's, e.g. `make test-envtest ENVTEST_K8S_VERSION=1.35`.
# setup-envtest selects any installed or downloadable release of it; K8S_VERSION is the release
# built from source where none can be downloaded, and KIND_NODE_IMAGE the kind tier's node.
GO_MOD_K8S_MINOR := $(shell go list -m -f '{{.Version}}' k8s.io/api | sed -E 's/^v0\.([0-9]+)\..*/1.\1/')
ENVTEST_K8S_VERSION ?= $(GO_MOD_K8S_MINOR)
K8S_VERSION ?= $(call kubernetes-version,$(ENVTEST_K8S_VERSION),2)
KIND_NODE_IMAGE ?= $(call kubernetes-version,$(ENVTEST_K8S_VERSION),3)

# Where the tools go, each file named with its version. Defined before any rule names one as a
# prerequisite: make expands a prerequisite when it reads the rule.
LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
SETUP_ENVTEST  ?= $(LOCALBIN)/setup-envtest-$(SETUP_ENVTEST_VERSION)
GOLANGCI_LINT  ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
ACTIONLINT     ?= $(LOCALBIN)/actionlint-$(ACTIONLINT_VERSION)
KUSTOMIZE      ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
KIND           ?= $(LOCALBIN)/kind-$(KIND_VERSION)
KUBEBUILDER    ?= $(LOCALBIN)/kubebuilder-$(KUBEBUILDER_VERSION)
# A kubebuilder project as a team starts one: init, one kind (Widget) with its controller, its CRD
# generated; nothing else.
SCAFFOLD       ?= $(LOCALBIN)/scaffold-$(KUBEBUILDER_VERSION)

# The manager image that docker-build builds and deploy, build-installer and the kind e2e tier
# deploy; config/manager names operator-demo:dev.
IMG ?= operator-demo:dev
# The e2e tier's cluster: kind or local. Unset, test-e2e asks `docker info` when it runs, not
# whenever make reads this file: kind where a Docker engine answers, else a local control plane.
E2E_PROVIDER ?=
GO_TEST_FLAGS ?= -race
# A race-enabled binary pauses 1 s at exit for goroutines still running to report races; the
# tests stop theirs before exiting, so the pause only adds a second to every test process.
export GORACE ?= atexit_sleep_ms=0
# GINKGO_FLAGS build the scenario binary; GINKGO_RUN_FLAGS go to the run (e.g. --coverprofile=F).
GINKGO_FLAGS ?= --race
GINKGO_RUN_FLAGS ?=
# Extra flags for make bench's envtest measurements, e.g. BENCH_FLAGS="-samples 200 -noise 2000".
BENCH_FLAGS ?=
# The envtest scenarios run in SCENARIO_PROCS Ginkgo processes sharing one control plane: their
# specs mostly wait on the operator, so more processes than cores pay off (measured: BENCHMARKS.md).
SCENARIO_PROCS ?= 6
REPORTS ?= $(CURDIR)/reports
# Where a change starts when BASE is not given: the merge-base with origin/main, else main.
DEFAULT_BASE = $(shell git merge-base origin/main HEAD 2>/dev/null || git merge-base main HEAD 2>/dev/null)
# The scenario binary, for the envtest tier and the catalogue's dry run: in bin/, not scenarios/
# (a file appearing there would be taken for a scenario's), and inside the repository whatever
# LOCALBIN is: Ginkgo runs it in bin/, from where the harness finds the repository's go.mod.
SCENARIOS_TEST = $(CURDIR)/bin/scenarios.test
# The workshop: the tools that serve only this repository (test-first, mutate, the catalogue,
# bench, demo, envtest-up), a Go module of its own in testing/workshop. workshop-tool builds the
# tool $(1) into bin/workshop/; every tool runs from the repository root.
WORKSHOP = $(LOCALBIN)/workshop
workshop-tool = go build -C testing/workshop -o $(WORKSHOP)/$(1) ./$(1)
# Both modules, for the targets that format, vet, tidy and lint them.
GO_MODULES = . testing/workshop

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec
.DEFAULT_GOAL := help

##@ General

.PHONY: help
help: ## Show the targets and what they do.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-20s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Getting started

.PHONY: demo
demo: linux-only build setup-controlplane ## Walk through the introductory article's kubebuilder walkthrough on a local cluster (KEEP=1 leaves it running for kubectl).
	$(call workshop-tool,demo)
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" \
		$(WORKSHOP)/demo $(if $(KEEP),-keep) -operator $(LOCALBIN)/manager -dir $(REPORTS)/demo

##@ Development

# controller-gen rewrites every file it generates; manifests lets it write into bin/generated and
# copies over only the files whose content changed. go test keys the files a test opens (the CRD)
# on their modification time, so a rewrite of the same bytes would rerun those tests for nothing.
.PHONY: manifests
manifests: controller-gen ## Generate the CRD and RBAC manifests under config/ from the Go markers.
	@rm -rf $(LOCALBIN)/generated
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/...;./controllers/..." output:crd:artifacts:config=$(LOCALBIN)/generated/crd output:rbac:artifacts:config=$(LOCALBIN)/generated/rbac
	@$(call copy-changed,$(LOCALBIN)/generated/crd,config/crd/bases)
	@$(call copy-changed,$(LOCALBIN)/generated/rbac,config/rbac)

# copy-changed copies each file of directory $(1) into directory $(2), unless $(2) holds the same bytes.
copy-changed = for f in $(1)/*; do cmp -s "$$f" "$(2)/$$(basename "$$f")" || cp "$$f" "$(2)/"; done

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object paths="./api/..."

.PHONY: fmt
fmt: ## go fmt the code (the operator's module and the workshop's).
	for m in $(GO_MODULES); do go fmt -C $$m ./...; done

.PHONY: vet
vet: ## go vet the code (the operator's module and the workshop's).
	for m in $(GO_MODULES); do go vet -C $$m ./...; done

# The catalogue takes the spec tree, its labels and locations from a dry run of the scenario
# binary (Ginkgo lists every spec without running one), and what only the source holds (doc
# comments, By steps) from the scenario files.
CATALOGUE_DRY_RUN = $(CURDIR)/bin/catalogue-dry-run.json

.PHONY: catalogue
catalogue: $(SCENARIOS_TEST) ## Generate scenarios/README.md, the scenario catalogue, from the specs, the mutants, the controller and the API.
	@$(call workshop-tool,catalogue)
	@cd bin && $(SCENARIOS_TEST) -ginkgo.dry-run -ginkgo.no-color -ginkgo.json-report=$(CATALOGUE_DRY_RUN) >/dev/null
	$(WORKSHOP)/catalogue scenarios $(CATALOGUE_DRY_RUN) scenarios/README.md

.PHONY: scenario
scenario: ## Write the skeleton of a new scenario NAME=<label>: every doc field, in the reading order, failing until written.
	@test -n "$(NAME)" || { echo "usage: make scenario NAME=<label>, e.g. make scenario NAME=paused"; exit 2; }
	@$(call workshop-tool,catalogue)
	$(WORKSHOP)/catalogue new '$(NAME)'
	@$(MAKE) --no-print-directory catalogue

.PHONY: lint
lint: golangci-lint actionlint cross-vet ## golangci-lint on the Go code, actionlint on the GitHub workflows, go vet for macOS and Windows.
	for m in $(GO_MODULES); do (cd $$m && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...); done
	$(ACTIONLINT)

# The systems besides Linux that every package, tests included, must build for: a developer on a
# Mac runs make test too.
CROSS_PLATFORMS ?= darwin/arm64 darwin/amd64 windows/amd64

.PHONY: cross-vet
cross-vet: ## go vet every package and its tests for CROSS_PLATFORMS (macOS, Windows): Linux-only code sits behind a build tag.
	@testing/cross-vet.sh $(CROSS_PLATFORMS)

.PHONY: lint-fix
lint-fix: golangci-lint ## golangci-lint, fixing what it can.
	for m in $(GO_MODULES); do (cd $$m && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml --fix ./...); done

.PHONY: verify
verify: $(CONTROLLER_GEN) $(SETUP_ENVTEST) ## Regenerate everything generated and tidy go.mod; fail if the tree then differs from git, saying per file whether it was stale or is uncommitted work.
	@testing/verify.sh

# testing/k8sbin pins the default version, go.mod's, whatever ENVTEST_K8S_VERSION says.
.PHONY: k8sbin-sync
k8sbin-sync: override ENVTEST_K8S_VERSION = $(GO_MOD_K8S_MINOR)
k8sbin-sync: override K8S_VERSION = $(call kubernetes-version,$(GO_MOD_K8S_MINOR),2)
k8sbin-sync: $(SETUP_ENVTEST) ## Re-pin testing/k8sbin (the control-plane build module) to the default Kubernetes version, go.mod's.
	@$(K8SBIN) sync

.PHONY: kubernetes-versions
kubernetes-versions: ## Print the supported Kubernetes minors, the default first, as JSON (the GitHub workflow's matrices).
	@awk '!/^#/ && NF {printf "%s\"%s\"", (n++ ? "," : "["), $$1} END {print "]"}' $(KUBERNETES_VERSIONS_FILE)

##@ The test-first loop

.PHONY: envtest-up
envtest-up: setup-envtest ## Start etcd and kube-apiserver with the CRDs once and leave them running: the scenarios then attach to them instead of starting their own (a stale one is replaced).
	@$(call workshop-tool,envtestup)
	@if ! $(WORKSHOP)/envtestup status 2>/dev/null; then \
		$(WORKSHOP)/envtestup down >/dev/null; \
		KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" nohup $(WORKSHOP)/envtestup serve > $(LOCALBIN)/envtest-up.log 2>&1 & \
		$(WORKSHOP)/envtestup wait || { tail -20 $(LOCALBIN)/envtest-up.log; exit 1; }; \
	fi

.PHONY: envtest-down
envtest-down: ## Stop the control plane make envtest-up started.
	@$(call workshop-tool,envtestup)
	@$(WORKSHOP)/envtestup down

.PHONY: watch
watch: envtest-up ## Rerun the scenarios labelled LABEL=<label> and the unit tests of controllers/ on every save, on the warm control plane.
	@test -n "$(LABEL)" || { echo "usage: make watch LABEL=<label>, e.g. make watch LABEL=create"; exit 2; }
	go tool ginkgo watch --label-filter='$(LABEL)' ./controllers ./scenarios

##@ Test

.PHONY: test
test: manifests generate fmt vet catalogue test-unit test-envtest ## Regenerate and vet, then the unit and envtest tiers, with the race detector.

# The unit tier's packages: all but those that start a control plane; and the workshop's, but
# for the self-tests that run make test-first and the README on throwaway clones.
UNIT_PACKAGES = $(shell go list ./api/... ./controllers/... ./scenarios/samples/... ./testing/... | grep -v -e /testing/controlplane)
WORKSHOP_UNIT_PACKAGES = $(shell go list -C testing/workshop ./... | grep -v -e /testfirst/history -e /freshclone)

.PHONY: test-unit
test-unit: ## Unit tier: pure functions and Reconcile against a fake client; the harness's and the tools' own tests. No control plane.
	go test $(GO_TEST_FLAGS) $(UNIT_PACKAGES)
	go test -C testing/workshop $(GO_TEST_FLAGS) $(WORKSHOP_UNIT_PACKAGES)

.PHONY: test-envtest
test-envtest: setup-envtest $(SCENARIOS_TEST) ## Envtest tier: the control plane's own test, then the scenarios on a real kube-apiserver + etcd, in parallel (ENVTEST_K8S_VERSION=1.35: another minor).
	@mkdir -p $(REPORTS)
	export KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)"; \
	go test $(GO_TEST_FLAGS) ./testing/controlplane/... && \
	go tool ginkgo $(GINKGO_RUN_FLAGS) $(if $(CI),--no-color) --procs=$(SCENARIO_PROCS) \
		--output-dir=$(REPORTS) --junit-report=envtest.xml $(SCENARIOS_TEST)

# Built once per make run, whatever its date: go's build cache decides what to recompile.
$(SCENARIOS_TEST): FORCE
	go tool ginkgo build $(GINKGO_FLAGS) -o $(SCENARIOS_TEST) ./scenarios

.PHONY: FORCE
FORCE:

# SCENARIO=<label> tries only the breaks of that scenario; MUTANT=<text> only the breaks that mention
# text. Either also tries every break whose lines the change touched since BASE (default: the
# merge-base with origin/main, else main; the work tree counts), since an edit there can leave a
# break breaking nothing.
.PHONY: mutate
mutate: setup-envtest ## Prove the scenarios can fail: build each break of testing/workshop/mutate/mutants into the operator; its scenario must fail (SCENARIO=<label>, MUTANT=<text>: some, plus those the change touched).
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,mutate)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" \
		$(WORKSHOP)/mutate $(if $(SCENARIO),-scenario '$(SCENARIO)') $(if $(MUTANT),-mutant '$(MUTANT)') \
		-changed-since "$(or $(BASE),$(DEFAULT_BASE))" | tee $(REPORTS)/mutate.md

# FILE=<text> sweeps only the files whose path contains text, BREAK=<text> only the breaks whose
# description contains it (the report's "file function operator: was → now"); REPEAT=<n> runs each envtest kill n
# more times, the whole envtest tier each time (default 2). The scenarios attach to make envtest-up's control
# plane, which stays up afterwards (make envtest-down).
.PHONY: mutate-sweep
mutate-sweep: envtest-up ## Make every generic break of controllers/ and api/ (delete a statement, negate a condition, drop a returned error, replace a constant); run the unit and envtest tiers against each; report the score and every survivor.
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,mutatesweep)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" \
		$(WORKSHOP)/mutatesweep $(if $(FILE),-file '$(FILE)') $(if $(BREAK),-break '$(BREAK)') $(if $(REPEAT),-repeat $(REPEAT)) | tee $(REPORTS)/mutate-sweep.md

# BASE: the revision a change starts from (default: the merge-base with origin/main, else main).
# A changed spec that only rewrites the test states so in a commit trailer `Spec-Rewrite: <name>`.
.PHONY: test-first
test-first: setup-controlplane ## Prove the change BASE..HEAD test-first: each new or changed spec fails against BASE's behaviour and passes at HEAD.
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,testfirst)
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" \
		$(WORKSHOP)/testfirst $(if $(BASE),-base $(BASE)) $(if $(HEAD),-head $(HEAD)) -report $(REPORTS)/test-first.md

.PHONY: red
red: manifests generate catalogue setup-envtest ## Run scenario NAME=<label>; once it fails inside its specs, commit it (with api/ and what is generated) before the code.
	@test -n "$(NAME)" || { echo "usage: make red NAME=<label>, e.g. make red NAME=paused"; exit 2; }
	@$(call workshop-tool,testfirst)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" $(WORKSHOP)/testfirst red -label '$(NAME)'

.PHONY: test-fresh-clone
test-fresh-clone: setup-envtest ## Run the README's one-scenario command in a fresh clone, with only setup-envtest's store populated.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -C testing/workshop -count=1 -timeout=15m ./freshclone/

.PHONY: test-harness-copy
test-harness-copy: setup-envtest $(SCAFFOLD) ## Take the harness as testing/README.md says: copy it into a fresh kubebuilder project, add a reconciler and one scenario, run it on envtest.
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,harnesscopy)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" \
		$(WORKSHOP)/harnesscopy -scaffold $(SCAFFOLD) -dir $(LOCALBIN)/harness-copy | tee $(REPORTS)/harness-copy.md

.PHONY: test-first-selftest
test-first-selftest: setup-controlplane ## Test make test-first on throwaway git histories: red then green, green at the base, characterization, red at the head.
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" go test -C testing/workshop -count=1 -timeout=30m ./testfirst/history/

.PHONY: test-e2e
test-e2e: ## E2e tier: the scenarios on a real cluster (E2E_PROVIDER=kind or local; unset: kind where Docker answers).
	@provider="$(E2E_PROVIDER)"; \
	if [ -z "$$provider" ]; then provider=$$(docker info >/dev/null 2>&1 && echo kind || echo local); fi; \
	echo "test-e2e: on $$provider"; \
	$(MAKE) --no-print-directory test-e2e-$$provider

.PHONY: test-e2e-local
test-e2e-local: linux-only build setup-controlplane ## E2e tier on a local control plane with a garbage collector, and scenarios/deployment.
	@mkdir -p $(REPORTS)
	assets="$(CONTROLPLANE_ASSETS)"; \
	KUBEBUILDER_ASSETS="$$assets" SCENARIOS_TIER=e2e E2E_PROVIDER=local \
		go test ./scenarios/ -count=1 -args -ginkgo.junit-report=$(REPORTS)/e2e.xml && \
	KUBEBUILDER_ASSETS="$$assets" \
		go test ./scenarios/deployment/ -count=1 -args -ginkgo.junit-report=$(REPORTS)/deployment.xml

.PHONY: test-e2e-kind
test-e2e-kind: $(KIND) setup-envtest kustomize ## E2e tier on kind: the image IMG, deployed as build-installer renders it.
	@mkdir -p $(REPORTS) $(LOCALBIN)/e2e-kind
	$(call render,$(LOCALBIN)/e2e-kind/install.yaml)
	KIND=$(KIND) KIND_NODE_IMAGE=$(KIND_NODE_IMAGE) IMG=$(IMG) REPORTS=$(REPORTS) MANIFESTS=$(LOCALBIN)/e2e-kind/install.yaml \
		KUBECTL="$(ENVTEST_ASSETS)/kubectl" testing/e2e-kind.sh

.PHONY: bench
bench: setup-envtest ## Measure (not part of make test): micro-benchmarks, then writes, throughput, latency, memory on envtest.
	go test -run '^$$' -bench . -benchmem ./controllers/
	$(call workshop-tool,bench)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" $(WORKSHOP)/bench $(BENCH_FLAGS)

.PHONY: bench-loop
bench-loop: setup-envtest ## Measure the test-first loop: a saved edit to the red/green line of scenario LABEL (default create), cold, warm (make envtest-up) and the floor.
	$(call workshop-tool,benchloop)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" $(WORKSHOP)/benchloop -label '$(or $(LABEL),create)'

.PHONY: bench-suite
bench-suite: setup-envtest $(SCAFFOLD) ## Measure make test (warm) beside a kubebuilder scaffold's, and the scenarios at 1-8 processes.
	BIN_DIR=$(LOCALBIN) SCAFFOLD=$(SCAFFOLD) KUBEBUILDER_VERSION=$(KUBEBUILDER_VERSION) \
		ASSETS="$(ENVTEST_ASSETS)" testing/workshop/bench/suite-speed.sh

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary into bin/manager.
	go build -o $(LOCALBIN)/manager ./cmd

.PHONY: run
run: manifests generate fmt vet ## Run the manager against the cluster in your kubeconfig.
	go run ./cmd --metrics-bind-address=0 --health-probe-bind-address=0

.PHONY: docker-build
docker-build: ## Build the manager image IMG (default operator-demo:dev).
	docker build -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the manager image IMG.
	docker push $(IMG)

.PHONY: build-installer
build-installer: manifests kustomize ## Write dist/install.yaml: the CRD, RBAC and the Deployment of the image IMG, in one file.
	@mkdir -p dist
	$(call render,dist/install.yaml)

##@ Deployment

.PHONY: install
install: manifests kustomize ## Install the CRD into the cluster in your kubeconfig.
	$(KUSTOMIZE) build config/crd | kubectl apply -f -

.PHONY: uninstall
uninstall: kustomize ## Remove the CRD (and with it every Sample) from the cluster.
	$(KUSTOMIZE) build config/crd | kubectl delete --ignore-not-found -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator (config/default) with the image IMG into the cluster in your kubeconfig.
	$(call render,$(LOCALBIN)/deploy/install.yaml)
	kubectl apply -f $(LOCALBIN)/deploy/install.yaml

.PHONY: undeploy
undeploy: kustomize ## Remove the operator from the cluster.
	$(KUSTOMIZE) build config/default | kubectl delete --ignore-not-found -f -

# render writes config/default, with the manager's image set to $(IMG), to the file $(1). The image
# is set in a kustomization of its own, made afresh under bin/ (kustomize takes a relative path to
# the base), so that the tree stays as it is whatever IMG says (kubebuilder's `kustomize edit set
# image` rewrites config/manager instead).
define render
@mkdir -p $(CURDIR)/bin; overlay=$$(mktemp -d "$(CURDIR)/bin/render.XXXXXX"); trap 'rm -rf "$$overlay"' EXIT; \
	printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../config/default\n' > "$$overlay/kustomization.yaml"; \
	(cd "$$overlay" && $(KUSTOMIZE) edit set image operator-demo=$(IMG)); \
	mkdir -p "$$(dirname $(1))"; \
	$(KUSTOMIZE) build "$$overlay" > $(1); \
	echo "rendered config/default with image $(IMG) into $(1)"
endef

##@ Dependencies

# kube-controller-manager, which the local cluster runs, is released and built for Linux alone.
.PHONY: linux-only
linux-only:
	@[ "$$(go env GOOS)" = linux ] || { echo "$(MAKECMDGOALS): the local cluster needs Linux (kube-controller-manager is built for Linux alone); on macOS, make test-e2e E2E_PROVIDER=kind with Docker Desktop runs the e2e tier"; exit 1; }

$(LOCALBIN):
	mkdir -p $(LOCALBIN)

# The control-plane installer: download where it can, build from Go module sources where it cannot.
K8SBIN = K8S_VERSION=$(K8S_VERSION) ENVTEST_K8S_VERSION=$(ENVTEST_K8S_VERSION) \
	SETUP_ENVTEST=$(SETUP_ENVTEST) BIN_DIR=$(LOCALBIN) testing/k8sbin/install.sh
# In a recipe, the directory of etcd, kube-apiserver and kubectl (ENVTEST_ASSETS), or of those
# plus kube-controller-manager (CONTROLPLANE_ASSETS): what KUBEBUILDER_ASSETS names. The shell
# asks the installer when the recipe runs, after the setup-* prerequisite has provided them.
ENVTEST_ASSETS = $$($(K8SBIN) envtest 2>/dev/null)
CONTROLPLANE_ASSETS = $$($(K8SBIN) controlplane 2>/dev/null)

.PHONY: setup-envtest
setup-envtest: $(SETUP_ENVTEST) ## Provide etcd, kube-apiserver, kubectl in bin/k8s/ and print their directory.
	@$(K8SBIN) envtest

.PHONY: setup-controlplane
setup-controlplane: $(SETUP_ENVTEST) ## setup-envtest plus kube-controller-manager, for the local e2e cluster.
	@$(K8SBIN) controlplane

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Install controller-gen into bin/.
$(CONTROLLER_GEN): | $(LOCALBIN)
	$(call go-install-tool,$(CONTROLLER_GEN),sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

$(SETUP_ENVTEST): | $(LOCALBIN)
	$(call go-install-tool,$(SETUP_ENVTEST),sigs.k8s.io/controller-runtime/tools/setup-envtest,$(SETUP_ENVTEST_VERSION))

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Install golangci-lint into bin/.
$(GOLANGCI_LINT): | $(LOCALBIN)
	$(call go-install-tool,$(GOLANGCI_LINT),github.com/golangci/golangci-lint/v2/cmd/golangci-lint,$(GOLANGCI_LINT_VERSION))

.PHONY: actionlint
actionlint: $(ACTIONLINT) ## Install actionlint into bin/.
$(ACTIONLINT): | $(LOCALBIN)
	$(call go-install-tool,$(ACTIONLINT),github.com/rhysd/actionlint/cmd/actionlint,$(ACTIONLINT_VERSION))

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Install kustomize into bin/.
$(KUSTOMIZE): | $(LOCALBIN)
	$(call go-install-tool,$(KUSTOMIZE),sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

.PHONY: kind
kind: $(KIND) ## Install kind into bin/.
$(KIND): | $(LOCALBIN)
	$(call go-install-tool,$(KIND),sigs.k8s.io/kind,$(KIND_VERSION))

.PHONY: kubebuilder
kubebuilder: $(KUBEBUILDER) ## Install kubebuilder into bin/ (make bench-suite's yardstick, make test-harness-copy's project).
$(KUBEBUILDER): | $(LOCALBIN)
	$(call go-install-tool,$(KUBEBUILDER),sigs.k8s.io/kubebuilder/v4,$(KUBEBUILDER_VERSION))

# SCAFFOLD (defined with the tools above) is made once: make bench-suite times its make test,
# make test-harness-copy copies the harness into a copy of it.
$(SCAFFOLD): | $(KUBEBUILDER)
	@echo "generating a kubebuilder $(KUBEBUILDER_VERSION) project in $@ (once)"
	@rm -rf $@.new && mkdir -p $@.new && cd $@.new && { \
		$(KUBEBUILDER) init --domain example.org --repo example.org/widgets --project-name widgets && \
		$(KUBEBUILDER) create api --group shop --version v1 --kind Widget --resource --controller && \
		env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make manifests; \
	} > $@.log 2>&1 || { tail -30 $@.log; exit 1; }
	@mv $@.new $@

# go-install-tool installs package $(2) at version $(3) as the versioned file $(1), so that a
# version bump above installs the new one instead of reusing the old.
define go-install-tool
@set -e; \
echo "installing $(2)@$(3)"; \
rm -f $(1); \
GOBIN=$(LOCALBIN) go install $(2)@$(3); \
mv $(LOCALBIN)/$$(basename $(2) | sed 's/^v[0-9]*$$/$(notdir $(patsubst %/,%,$(dir $(2))))/') $(1)
endef
