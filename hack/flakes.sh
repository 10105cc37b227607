#!/usr/bin/env bash
# flakes.sh RUNS MAKE_ARGUMENTS...: runs `make MAKE_ARGUMENTS...` RUNS times, each to its end
# whatever the one before it did, keeping each run's Ginkgo JUnit reports (reports/*.xml) in
# reports/run-<i>/. Then it names every spec that failed, run by run (failed-specs.sh), and says
# what the runs bound: with no failure in N runs, a flake rate below 3/N at 95% confidence (the
# rule of three). It fails when a run failed or wrote no report. The Flakes workflow runs it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=${1:?usage: flakes.sh RUNS MAKE_ARGUMENTS...}
shift
failed=0
for i in $(seq "$runs"); do
  printf '\n==> run %d of %d: make %s\n' "$i" "$runs" "$*"
  rm -rf "reports/run-$i" && mkdir -p "reports/run-$i"
  find reports -maxdepth 1 -name '*.xml' -delete
  ok=true
  make "$@" || ok=false
  find reports -maxdepth 1 -name '*.xml' -exec mv -t "reports/run-$i" {} +
  [ -n "$(find "reports/run-$i" -name '*.xml')" ] || ok=false
  $ok || failed=$((failed + 1))
done

# The summary, also to the step's summary on GitHub Actions.
summary() {
  printf '\n## make %s, %d runs\n\n' "$*" "$runs"
  for i in $(seq "$runs"); do
    reports=("reports/run-$i"/*.xml)
    [ -e "${reports[0]}" ] || { printf -- '- run %d wrote no report\n' "$i"; continue; }
    "$here/failed-specs.sh" "${reports[@]}" | grep -v '^No spec failed' | sed "s/^- /- run $i: /" || true
  done
  if [ "$failed" = 0 ]; then
    printf 'No failure in %d runs: a flake rate below 3/%d = %s%% at 95%% confidence.\n' "$runs" "$runs" \
      "$(awk -v n="$runs" 'BEGIN {printf "%.1f", 300 / n}')"
  else
    printf '%d of %d runs failed (above). Fix each spec named; never retry it.\n' "$failed" "$runs"
  fi
}
summary "$@" | tee -a "${GITHUB_STEP_SUMMARY:-/dev/null}"
[ "$failed" = 0 ]
