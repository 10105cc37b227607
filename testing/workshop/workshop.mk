# The workshop's targets: the tools that serve only this repository (testing/workshop, a Go module
# of its own), included by the root Makefile where the file is. Nothing here is part of `make
# test`; a team taking the operator can delete testing/workshop, and make lint, make verify and
# make test then leave out what was the workshop's.

# KUBEBUILDER_VERSION: the project that make test-adopter uses the harness in.
KUBEBUILDER_VERSION ?= v4.16.0
KUBEBUILDER ?= $(LOCALBIN)/kubebuilder-$(KUBEBUILDER_VERSION)
# A kubebuilder project as a team starts one: init, one kind (Widget) with its controller, its CRD
# generated; nothing else.
SCAFFOLD ?= $(LOCALBIN)/scaffold-$(KUBEBUILDER_VERSION)
# workshop-tool builds the tool $(1) into bin/workshop/; every tool runs from the repository root.
WORKSHOP = $(LOCALBIN)/workshop
workshop-tool = go build -C testing/workshop -o $(WORKSHOP)/$(1) ./$(1)
# Where a change (to HEAD, else the checked-out commit) starts when BASE is not given: the
# merge-base with origin/main, else main.
DEFAULT_BASE = $(shell git merge-base origin/main $(or $(HEAD),HEAD) 2>/dev/null || git merge-base main $(or $(HEAD),HEAD) 2>/dev/null)

##@ Getting started

.PHONY: demo
demo: linux-only build setup-controlplane ## Walk through the introductory article's kubebuilder walkthrough on a local cluster (KEEP=1 leaves it running for kubectl).
	$(call workshop-tool,demo)
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" \
		$(WORKSHOP)/demo $(if $(KEEP),-keep) -operator $(LOCALBIN)/manager -dir $(REPORTS)/demo

##@ The test-first loop (docs/test-first.md)

# The catalogue takes the spec tree, its labels and locations from a dry run of each scenario
# binary, ./scenarios and ./scenarios/upgrade (Ginkgo lists every spec without running one), and
# what only the source holds (doc comments, By steps) from the scenario files. make verify
# regenerates it.
CATALOGUE_DRY_RUN = $(CURDIR)/bin/catalogue-dry-run
UPGRADE_TEST = $(CURDIR)/bin/upgrade.test
# catalogue-dry-run runs the test binary $(1) as a dry run, its report into $(2).
define catalogue-dry-run
@cd bin && out=$$($(1) -ginkgo.dry-run -ginkgo.no-color -ginkgo.json-report=$(2) 2>&1) || \
	{ printf 'catalogue: the dry run of %s failed:\n%s\n' "$(1)" "$$out" >&2; exit 1; }
endef

.PHONY: catalogue
catalogue: ## Generate scenarios/README.md, the scenario catalogue, from the specs and the mutants.
	$(build-scenarios)
	go tool ginkgo build $(GINKGO_FLAGS) -o $(UPGRADE_TEST) ./scenarios/upgrade
	@$(call workshop-tool,catalogue)
	$(call catalogue-dry-run,$(SCENARIOS_TEST),$(CATALOGUE_DRY_RUN).json)
	$(call catalogue-dry-run,$(UPGRADE_TEST),$(CATALOGUE_DRY_RUN)-upgrade.json)
	$(WORKSHOP)/catalogue scenarios/README.md scenarios $(CATALOGUE_DRY_RUN).json scenarios/upgrade $(CATALOGUE_DRY_RUN)-upgrade.json

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
watch: envtest-up ## Rerun the scenarios labelled LABEL=<label> on every save of what they build from, on the warm control plane.
	@test -n "$(LABEL)" || { echo "usage: make watch LABEL=<label>, e.g. make watch LABEL=create"; exit 2; }
	go tool ginkgo watch --label-filter='$(LABEL)' ./scenarios

# SCENARIO=<label> tries only the breaks of that scenario; MUTANT=<text> only the breaks that
# mention text. A break whose scenario needs kube-controller-manager (storage-migration) runs on a
# local control plane, which Linux alone has: elsewhere, choose the others with SCENARIO or MUTANT.
.PHONY: mutate
mutate: setup-envtest ## Prove the scenarios can fail: build each break of testing/workshop/mutate/mutants into the operator; its scenario must fail (SCENARIO=<label>, MUTANT=<text>: some).
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,mutate)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" \
		$(WORKSHOP)/mutate $(if $(SCENARIO),-scenario '$(SCENARIO)') $(if $(MUTANT),-mutant '$(MUTANT)') \
			$(if $(filter linux,$(shell go env GOOS)),-controlplane "$(CONTROLPLANE_ASSETS)") | tee $(REPORTS)/mutate.md

# BASE=<rev> sweeps only the lines changed since rev (git diff BASE: the work tree and new files
# count), as a pull request does; without it, every line. BREAK=<text> sweeps only the breaks whose
# ID contains text (the report's "file function operator: was → now": a path picks its files).
# REACHED_BY='<package> <full name>' (./controllers TestDesiredStatus) sweeps only the breaks that
# spec's run reaches; with ALONE=1, it tries that spec alone against them, up to the first that
# fails it, and fails if none does: the checks make test-first makes of a characterization spec
# and of a rewritten one. The scenarios attach to make envtest-up's control plane, which stays up afterwards (make
# envtest-down). On GitHub Actions, tee writes the report to the step's summary too.
.PHONY: mutate-sweep
mutate-sweep: envtest-up ## Make every generic break of controllers/ and api/ (delete a statement, negate a condition, drop a returned error, replace a constant), or with BASE=<rev> those of the lines changed since rev, with REACHED_BY='<package> <spec>' those that spec reaches (ALONE=1: up to the first that fails it alone), or with HARNESS=1 those of the harness a team imports (judged by its own tests); run the tests that reach each against it; report the score and fail on every survivor.
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,mutatesweep)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" \
		$(WORKSHOP)/mutatesweep $(if $(HARNESS),-harness) $(if $(BASE),-changed-since '$(BASE)') $(if $(BREAK),-break '$(BREAK)') \
			$(if $(REACHED_BY),-reached-by '$(REACHED_BY)') $(if $(ALONE),-alone) | tee $(REPORTS)/mutate-sweep.md $(GITHUB_STEP_SUMMARY)

# BASE: the revision a change starts from. A changed spec that only rewrites the test states so in
# a commit trailer `Spec-Rewrite: <name>`; a spec removed or renamed, `Spec-Removed: <name>`; a
# break added to the sweep's equivalence list, `Equivalent: <ID>`. A characterization spec, and a
# rewritten one, also run at the head against the breaks their specs reach (as REACHED_BY above). On GitHub Actions, tee writes
# the table to the step's summary too.
.PHONY: test-first
test-first: setup-controlplane ## Prove the change BASE..HEAD test-first: each new or changed spec fails against BASE's behaviour and passes at HEAD.
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,testfirst)
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" \
		$(WORKSHOP)/testfirst -base "$(or $(BASE),$(DEFAULT_BASE))" $(if $(HEAD),-head $(HEAD)) | tee $(REPORTS)/test-first.md $(GITHUB_STEP_SUMMARY)

##@ The workshop's own tests (docs/workshop.md)

# Its unit packages: all but the self-tests that run make test-first and the README on throwaway clones.
WORKSHOP_UNIT_PACKAGES = $(shell go list -C testing/workshop ./... | grep -v -e /testfirst/history -e /freshclone)

.PHONY: test-workshop
test-workshop: ## The tools' own tests and the Markdown links among them. No control plane.
	go test -C testing/workshop $(GO_TEST_FLAGS) $(WORKSHOP_UNIT_PACKAGES)

.PHONY: test-fresh-clone
test-fresh-clone: setup-envtest ## Run the README's one-scenario command in a fresh clone, with only setup-envtest's store populated.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -C testing/workshop -count=1 -timeout=15m ./freshclone/

.PHONY: test-adopter
test-adopter: setup-envtest $(SCAFFOLD) ## Use the harness as testing/README.md says: a fresh kubebuilder project requires its module (a Pod template, a finalizer, RequeueAfter, a converted v2, a second kind), runs its scenarios on envtest, sees each break of it red within seconds.
	@mkdir -p $(REPORTS)
	@$(call workshop-tool,adopter)
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" \
		$(WORKSHOP)/adopter -scaffold $(SCAFFOLD) -kubebuilder $(KUBEBUILDER) -dir $(LOCALBIN)/adopter | tee $(REPORTS)/adopter.md

.PHONY: test-first-selftest
test-first-selftest: setup-controlplane envtest-up ## Test make test-first on throwaway git histories: red then green, green at the base, characterization (and one no break fails), red at the head, rewrites (and one that weakens), removals, equivalents, pending specs. Their envtest runs share make envtest-up's control plane; each case's time is printed.
	KUBEBUILDER_ASSETS="$(CONTROLPLANE_ASSETS)" ENVTEST_WARM="$(LOCALBIN)/envtest-up/kubeconfig" \
		go test -C testing/workshop -count=1 -timeout=50m -v ./testfirst/history/

##@ Benchmarks (BENCHMARKS.md)

.PHONY: bench
bench: ## Measure (not part of make test): the reconcile's Go benchmarks, time and allocations per pass.
	go test -run '^$$' -bench . -benchmem ./controllers/

.PHONY: kubebuilder
kubebuilder: $(KUBEBUILDER) ## Download kubebuilder locally if necessary (make test-adopter's project).
$(KUBEBUILDER): | $(LOCALBIN)
	$(call go-install-tool,$(KUBEBUILDER),sigs.k8s.io/kubebuilder/v4,$(KUBEBUILDER_VERSION))

# SCAFFOLD is made once: make test-adopter uses the harness in a copy of it.
$(SCAFFOLD): | $(KUBEBUILDER)
	@echo "generating a kubebuilder $(KUBEBUILDER_VERSION) project in $@ (once)"
	@rm -rf $@.new && mkdir -p $@.new && cd $@.new && { \
		$(KUBEBUILDER) init --domain example.org --repo example.org/widgets --project-name widgets && \
		$(KUBEBUILDER) create api --group shop --version v1 --kind Widget --resource --controller && \
		env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make manifests; \
	} > $@.log 2>&1 || { tail -30 $@.log; exit 1; }
	@mv $@.new $@
