package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"example.com/operator-demo/testing/workshop/mutate/sweep"
	"example.com/operator-demo/testing/workshop/mutate/trial"
)

// judgeAll judges each spec by its runs, and by its bite where it needs one.
func (c check) judgeAll(base, head *checkout, specs []spec, atBase, withAPI, atHead map[string]outcome) ([]row, error) {
	bites, err := c.bites(base, head, specs, withAPI, atHead)
	rows := make([]row, 0, len(specs))
	for _, s := range specs {
		rows = append(rows, judge(s, atBase[key(s)], withAPI[key(s)], atHead[key(s)], bites[key(s)]))
	}
	return rows, err
}

// bites runs each unit test that passes at the head but does not compile against the base, even
// with the head's api/ (a test of a function the change adds), against the mutation sweep's breaks
// of the functions it tests: those of its package that the change adds and that its body names.
// A test that fails against none of them would pass whatever those functions did.
func (c check) bites(base, head *checkout, specs []spec, withAPI, atHead map[string]outcome) (map[string]outcome, error) {
	out := map[string]outcome{}
	for _, s := range specs {
		if s.kind != unit || withAPI[key(s)].state != uncompiled || atHead[key(s)].state != passed {
			continue
		}
		progress("%s does not compile against the base: running it against the breaks of the functions it tests", s.name)
		o, err := head.bite(base.dir, s, filepath.Join(c.work, "bite", s.name))
		if err != nil {
			return nil, fmt.Errorf("%s against the breaks of the functions it tests: %w", s.name, err)
		}
		out[key(s)] = o
	}
	return out, nil
}

// bite runs the unit test s, in the tree, against the breaks of the functions it tests (those the
// tree at base lacks), built into dir, up to the first that it fails against.
func (t *checkout) bite(base string, s spec, dir string) (outcome, error) {
	checker, breaks, err := t.breaksOfNew(base, s)
	if err != nil {
		return outcome{}, err
	}
	if len(breaks) == 0 {
		return outcome{passed, "no break: of the functions its package gains, it names none with a break that compiles"}, nil
	}
	schema, err := sweep.Build(checker, breaks, func(overlay map[string]string) ([]byte, error) {
		return trial.Build(t.dir, dir, overlay, s.pkg)
	})
	if err != nil {
		return outcome{}, err
	}
	for i, b := range breaks {
		built, env := dir, []string{sweep.Env + "=" + strconv.Itoa(i+1)}
		if !schema.Switched[i] {
			built, env = filepath.Join(dir, strconv.Itoa(i+1)), nil
			if out, err := trial.Build(t.dir, built, schema.Alone(b), s.pkg); err != nil {
				return outcome{}, fmt.Errorf("build %s: %w\n%s", b.ID(), err, out)
			}
		}
		v, err := trial.Unit(t.dir, built, s.pkg, env, []string{s.name}, trial.Notices)
		if err != nil {
			return outcome{}, err
		}
		if v.Failed {
			return outcome{failed, fmt.Sprintf("%s:%d %s %s: %s → %s", b.File, b.Line, b.Func, b.Operator, b.Was, b.Now)}, nil
		}
	}
	var tested []string
	for _, b := range breaks {
		if !slices.Contains(tested, b.Func) {
			tested = append(tested, b.Func)
		}
	}
	return outcome{passed, fmt.Sprintf("none of the %d breaks of %s", len(breaks), strings.Join(tested, ", "))}, nil
}

// breaksOfNew are the sweep's breaks that compile of the functions of s's package, in the tree,
// that s's body names and the tree at base lacks.
func (t *checkout) breaksOfNew(base string, s spec) (*sweep.Checker, []sweep.Break, error) {
	pkgDir := strings.TrimPrefix(s.pkg, "./")
	checker, breaks, _, err := sweep.Compiling(t.dir, []string{pkgDir}, func(b sweep.Break) bool {
		name := b.Func[strings.LastIndex(b.Func, ".")+1:]
		return b.Func != "" && slices.Contains(strings.Fields(s.body), name) && !declares(base, pkgDir, name)
	})
	return checker, breaks, err
}

// declares says whether the package in dir of the tree at root declares a function or a method
// called name.
func declares(root, dir, name string) bool {
	files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
	decl := regexp.MustCompile(`(?m)^func (\([^)]*\) )?` + regexp.QuoteMeta(name) + `[\[(]`)
	return slices.ContainsFunc(files, func(f string) bool {
		src, err := os.ReadFile(f)
		return err == nil && !strings.HasSuffix(f, "_test.go") && decl.Match(src)
	})
}
