#!/usr/bin/env bash
# testing/workshop/bench/suite-speed.sh: how long `make test` takes warm, measured beside a kubebuilder
# scaffold's `make test` on the same machine, and what running the scenarios in parallel buys.
# The goal it checks: `make test` within 1.2x of the scaffold's. `make bench-suite` runs it; it
# writes its table into BENCHMARKS.md and the make test time into README.md, between the markers
# that bound them.
#
# The scaffold is the Makefile's $(SCAFFOLD) (kubebuilder init + create api for one kind, nothing
# else, made once; make test-harness-copy copies the harness into a copy of it), given this
# project's control-plane binaries. Both make tests run once to warm up, then alternately RUNS
# times; the table shows each one's median. Both run as a developer would start them: without the
# calling make's flags and variables.
# Needs bash 4.3+, GNU date (%N) and GNU cp (-al), as on Linux.
set -euo pipefail
: "${BIN_DIR:?}" "${ASSETS:?the directory of the control-plane binaries (make setup-envtest)}"
: "${SCAFFOLD:?the kubebuilder project, SCAFFOLD in the Makefile}" "${KUBEBUILDER_VERSION:?}"
RUNS=${RUNS:-3}
PROCS=${PROCS:-2 4 6 8}
cd "$(dirname "$0")/../../.."

scaffold="$SCAFFOLD"

# seconds CMD...: runs CMD quietly and prints its wall time in seconds; fails with its output.
seconds() {
	local log start
	log=$(mktemp)
	start=$(date +%s.%N)
	if ! "$@" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
	awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN {printf "%.1f", end - start}'
}

median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# The scaffold's setup-envtest finds binaries in its bin/k8s/<version>-<os>-<arch>; offline it
# must not look further (ENVTEST_INSTALLED_ONLY). It skips a symlink: hard-link the files instead.
if [ ! -d "$scaffold/bin/k8s/$(basename "$ASSETS")" ]; then
	mkdir -p "$scaffold/bin/k8s"
	cp -al "$ASSETS" "$scaffold/bin/k8s/" 2>/dev/null || cp -a "$ASSETS" "$scaffold/bin/k8s/"
fi
fresh_make() { env -u MAKEFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u MFLAGS make "$@"; }
scaffold_test() { (cd "$scaffold" && ENVTEST_INSTALLED_ONLY=true fresh_make test); }
our_test() { fresh_make test; }

# From an empty test cache, so that each warm-up runs every test and go test records its result
# under both of its keys. A result it once found only by the second (the test binary's own ID,
# after a change that left the binary as it was) sends every later run through the link step
# again: 3 s a package here, until that test reruns.
go clean -testcache
echo "warming up both (one make test each)"
seconds scaffold_test >/dev/null
seconds our_test >/dev/null

ours=() theirs=()
for i in $(seq "$RUNS"); do
	theirs+=("$(seconds scaffold_test)")
	ours+=("$(seconds our_test)")
	echo "run $i/$RUNS: scaffold ${theirs[-1]} s, operator-demo ${ours[-1]} s"
done
m_ours=$(median "${ours[@]}")
m_theirs=$(median "${theirs[@]}")
ratio=$(awk -v a="$m_ours" -v b="$m_theirs" 'BEGIN {printf "%.2f", a / b}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r <= 1.2) ? "ok" : "**over**"}')

# The scenario suite alone, from the binary make test built: one process, then each of PROCS.
suite() { KUBEBUILDER_ASSETS="$ASSETS" seconds go tool ginkgo --procs="$1" bin/scenarios.test; }
serial=$(suite 1)
parallel=()
for p in $PROCS; do
	parallel+=("$(suite "$p")")
done

machine="$(nproc) cores ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)), $(go env GOOS)/$(go env GOARCH), $(go version | awk '{print $3}')"
table() {
	echo "Run on $(date -u +%Y-%m-%d), on $machine."
	echo
	echo "| What (warm, median of $RUNS) | Time | Goal | |"
	echo "|---|---|---|---|"
	echo "| \`make test\` (manifests, generate, fmt, vet, unit, envtest; race detector on) | ${m_ours} s | ≤ 1.2× the scaffold's | ${ratio}× $verdict |"
	echo "| kubebuilder $KUBEBUILDER_VERSION scaffold, \`make test\` (one kind, its one trivial spec) | ${m_theirs} s | — | |"
	echo "| the scenario suite, 1 Ginkgo process | $serial s | — | |"
	set -- $PROCS
	for t in "${parallel[@]}"; do
		echo "| the scenario suite, $1 Ginkgo processes sharing one control plane | $t s | — | $(awk -v a="$serial" -v b="$t" 'BEGIN {printf "%.1f", a / b}')× faster than 1 |"
		shift
	done
	echo
	echo "The $RUNS runs: scaffold ${theirs[*]} s; operator-demo ${ours[*]} s."
}
echo
table

# The figures go where they are read, between the markers that bound what this script writes:
# BENCHMARKS.md's table, dated, and the README's make test time, undated, pointing to the table
# (testing/workshop/bench's test checks they agree).
replace() { # replace FILE MARKER TEXT
	awk -v marker="$2" -v text="$3" '
		$0 == "<!-- " marker " -->" { print; print text; skip = 1; next }
		$0 == "<!-- /" marker " -->" { skip = 0 }
		!skip { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}
replace BENCHMARKS.md "make bench-suite" "$(table)"
replace README.md "make bench-suite" "After that, \`make test\` takes about ${m_ours} s warm, ${ratio}× a bare kubebuilder scaffold's ([BENCHMARKS.md](BENCHMARKS.md#test-suite-speed-make-bench-suite))."
echo
echo "bench-suite: wrote the table into BENCHMARKS.md and the make test time into README.md"
