#!/usr/bin/env bash
# failed-specs.sh REPORT...: the specs that failed in Ginkgo's JUnit reports, one a line with its
# report, or a line saying none did. It fails when a report is missing or none is given, so that a
# run that wrote no report is never read as a clean one.
set -euo pipefail
[ $# -gt 0 ] || { echo "failed-specs: no report given" >&2; exit 1; }
failed=0
for report in "$@"; do
  [ -f "$report" ] || { echo "failed-specs: no report $report" >&2; exit 1; }
  while IFS= read -r name; do
    printf -- '- failed: %s (%s)\n' "$name" "$(basename "$report")"
    failed=$((failed + 1))
  done < <(grep -oE '<testcase name="[^"]*"[^>]*status="(failed|panicked|timedout|interrupted|aborted)"' "$report" |
    sed -E 's/^<testcase name="([^"]*)".*/\1/; s/&#34;|&quot;/"/g; s/&#39;|&apos;/'"'"'/g; s/&lt;/</g; s/&gt;/>/g; s/&#xA;/ /g; s/&amp;/\&/g')
done
[ "$failed" != 0 ] || printf 'No spec failed in %s.\n' "$*"
