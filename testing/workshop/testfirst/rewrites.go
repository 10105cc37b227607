package main

import (
	"fmt"
	"strings"
)

// RewriteTrailer is the git trailer by which a commit of the change states that it rewrites one
// spec without changing what the spec proves (a refactor of the test, a spec renamed or split from
// existing ones, or a spec that the new behaviour obliges to change, which then still passes
// against the base). Its value is the spec's
// name as the table shows it: a scenario's full text or a test function's name. One trailer a
// spec; the commit's subject is what the table quotes, so it should say why.
const RewriteTrailer = "Spec-Rewrite"

// rewriteStatement is one Spec-Rewrite trailer: the spec it names, and the commit that says it.
type rewriteStatement struct {
	spec, commit, subject string
}

// rewriteLog is the git log format that parseRewrites reads: a record a commit, its fields
// separated by NUL, the trailer's values one a line.
const rewriteLog = "--format=%x1e%h%x00%s%x00%(trailers:key=" + RewriteTrailer + ",valueonly,unfold)"

// readRewrites reads the rewrite statements of the change's commits, base..head.
func readRewrites(c check) ([]rewriteStatement, error) {
	out, err := git(c.repo, "log", rewriteLog, c.base+".."+c.head)
	if err != nil {
		return nil, err
	}
	return parseRewrites(out), nil
}

func parseRewrites(log string) []rewriteStatement {
	var out []rewriteStatement
	for record := range strings.SplitSeq(log, "\x1e") {
		fields := strings.SplitN(record, "\x00", 3)
		if len(fields) != 3 {
			continue
		}
		for name := range strings.SplitSeq(fields[2], "\n") {
			if name = strings.TrimSpace(name); name != "" {
				out = append(out, rewriteStatement{spec: name, commit: fields[0], subject: fields[1]})
			}
		}
	}
	return out
}

// applyRewrites marks each spec that a statement names, and returns the statements that name no
// spec the change changes: a statement for nothing misleads the reviewer, so it fails the check.
func applyRewrites(specs []spec, statements []rewriteStatement) (stale []string) {
	for _, st := range statements {
		found := false
		for i := range specs {
			if specs[i].name == st.spec {
				specs[i].rewrite = fmt.Sprintf("%s %q", st.commit, st.subject)
				found = true
			}
		}
		if !found {
			stale = append(stale, fmt.Sprintf("%s %q states a rewrite of %q, which this change does not add or change (%s: takes the spec's name as the table shows it)",
				st.commit, st.subject, st.spec, RewriteTrailer))
		}
	}
	return stale
}
