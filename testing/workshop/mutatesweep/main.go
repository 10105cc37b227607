// Command mutatesweep is make mutate-sweep: package sweep's breaks of the operator (or, with
// -harness, of the harness), each against the tests that reach it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"example.com/operator-demo/testing/workshop/mutate/sweeper"
)

func main() {
	breakText := flag.String("break", "", "try only the breaks whose ID (file function operator: was → now) contains this text: a path, say")
	harness := flag.Bool("harness", false, "break the harness a team imports, judged by its own tests, instead of the operator")
	since := flag.String("changed-since", "", "try only the breaks on the lines changed since this revision (the work tree counts)")
	reachedBy := flag.String("reached-by", "", "try only the breaks that this spec's run reaches: its package, a space, its full name (./controllers TestDesiredStatus)")
	alone := flag.Bool("alone", false, "with -reached-by: try the spec alone against them, up to the first that fails it, instead of each against every test that reaches it")
	flag.Parse()
	if err := sweep(*breakText, *since, *reachedBy, *alone, *harness); err != nil {
		fmt.Fprintln(os.Stderr, "mutate-sweep:", err)
		os.Exit(1)
	}
}

// sweep sweeps what the flags select, as sweeper.Selection says.
func sweep(breakText, since, reachedBy string, alone, harness bool) error {
	sel := sweeper.Selection{Break: breakText, Since: since, Alone: alone}
	if alone && reachedBy == "" {
		return errors.New("-alone: which spec? it needs -reached-by")
	}
	if reachedBy != "" {
		spec, err := sweeper.ParseSpec(reachedBy)
		if err != nil {
			return fmt.Errorf("-reached-by: %w", err)
		}
		sel.ReachedBy = spec
	}
	return sweeper.Sweep(harness, sel, os.Stdout)
}
