// Package mutants lists the ways to break the controller that the scenarios exist to catch, each
// with the scenario that must fail against it. `make mutate` (testing/workshop/mutate) builds each into the
// operator and runs its scenario; the catalogue lists them under their scenarios.
package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Edit replaces the lines of File (relative to the repository root) that read From with To. From
// matches whole lines only, one or more, each compared without its indentation, so that a new line
// that merely begins with From's text cannot capture the edit and leave the break breaking
// nothing. To takes the first matched line's indentation.
type Edit struct{ File, From, To string }

// Mutant is one way to break the controller, and the scenario that must catch it.
type Mutant struct {
	// Break says what the broken controller does wrong.
	Break string
	// Scenario is the label of the scenario that must fail against it.
	Scenario string
	// Edits, applied in order, make the break.
	Edits []Edit
}

// Span is the lines of a file that an edit replaces, numbered from 1, as the file is before the
// mutant's edits.
type Span struct {
	File        string
	First, Last int
}

// Apply makes m's edits to the files under root, in memory, and returns the mutated content of
// each file it touched, by path relative to root. An edit whose From is not in its file exactly
// once, as whole lines, is an error: the mutant has gone stale and must follow the code.
func (m Mutant) Apply(root string) (map[string]string, error) {
	mutated := map[string]string{}
	for _, e := range m.Edits {
		content, ok := mutated[e.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, e.File))
			if err != nil {
				return nil, err
			}
			content = string(b)
		}
		lines := strings.SplitAfter(content, "\n")
		first, err := e.find(lines)
		if err != nil {
			return nil, err
		}
		last := first + strings.Count(e.From, "\n")
		indent := lines[first][:len(lines[first])-len(strings.TrimLeft(lines[first], " \t"))]
		replaced := indent + e.To + lineEnd(lines[last])
		mutated[e.File] = strings.Join(lines[:first], "") + replaced + strings.Join(lines[last+1:], "")
	}
	return mutated, nil
}

// Spans are the lines each of m's edits replaces in the files under root as they are.
func (m Mutant) Spans(root string) ([]Span, error) {
	var out []Span
	for _, e := range m.Edits {
		b, err := os.ReadFile(filepath.Join(root, e.File))
		if err != nil {
			return nil, err
		}
		first, err := e.find(strings.SplitAfter(string(b), "\n"))
		if err != nil {
			return nil, err
		}
		out = append(out, Span{File: e.File, First: first + 1, Last: first + 1 + strings.Count(e.From, "\n")})
	}
	return out, nil
}

// find is the index of the first of the lines that read e.From, which must stand there once.
func (e Edit) find(lines []string) (int, error) {
	want := strings.Split(e.From, "\n")
	var at []int
	for i := 0; i+len(want) <= len(lines); i++ {
		if slices.EqualFunc(lines[i:i+len(want)], want, func(line, w string) bool {
			return strings.TrimSpace(line) == strings.TrimSpace(w)
		}) {
			at = append(at, i)
		}
	}
	if len(at) != 1 {
		return 0, fmt.Errorf("%s holds the lines %q %d times, not once: update the mutant to follow the code", e.File, e.From, len(at))
	}
	return at[0], nil
}

// lineEnd is the line's end of line, if it has one.
func lineEnd(line string) string {
	if strings.HasSuffix(line, "\n") {
		return "\n"
	}
	return ""
}

const (
	controllerGo = "controllers/sample_controller.go"
	configMapGo  = "controllers/sample_configmap.go"
	statusGo     = "controllers/sample_status.go"
	managerGo    = "controllers/manager.go"
)

// All are the mutants, in the catalogue's reading order of their scenarios.
//
//nolint:goconst // scenario labels, written as the scenarios write them
var All = []Mutant{
	{"the ConfigMap's own Create event reconciles the Sample again", "create",
		[]Edit{{controllerGo, "CreateFunc: func(event.CreateEvent) bool { return false },", "CreateFunc: func(event.CreateEvent) bool { return true },"}}},
	{"every pass writes the ConfigMap, changed or not", "skip-when-equal",
		[]Edit{{configMapGo, "return merged, dataChanged || labelsChanged", "return merged, dataChanged || labelsChanged || true"}}},
	{"the Ready condition is stamped afresh on every pass", "skip-when-equal",
		[]Edit{{statusGo, "meta.SetStatusCondition(&status.Conditions, ready)", "meta.RemoveStatusCondition(&status.Conditions, ready.Type); meta.SetStatusCondition(&status.Conditions, ready)"}}},
	{"a changed spec.message never reaches the ConfigMap", "update",
		[]Edit{{configMapGo, "return merged, dataChanged || labelsChanged", "return merged, dataChanged && labelsChanged && false"}}},
	{"no watch on owned ConfigMaps: their events start no reconcile", "owned-drift",
		[]Edit{{controllerGo, "CreateFunc: func(event.CreateEvent) bool { return false },",
			"CreateFunc: func(event.CreateEvent) bool { return false }, UpdateFunc: func(event.UpdateEvent) bool { return false }, DeleteFunc: func(event.DeleteEvent) bool { return false },"}}},
	{"the whole data map is replaced, dropping others' keys", "owned-drift",
		[]Edit{{configMapGo, "dataChanged := overlay(&merged.Data, desired.Data)", "dataChanged := merged.Data[demov1alpha1.MessageKey] != desired.Data[demov1alpha1.MessageKey]; merged.Data = desired.Data"}}},
	{"the managed-by label is not put back: a ConfigMap stripped of it leaves the cache for good", "owned-drift",
		[]Edit{{configMapGo, "labelsChanged := overlay(&merged.Labels, desired.Labels)", "labelsChanged := false"}}},
	{"a missing key reads as an empty message: an empty message's key, deleted, is never put back", "owned-drift",
		[]Edit{{configMapGo, "if old, ok := (*dst)[k]; ok && old == v {", "if old := (*dst)[k]; old == v {"}}},
	{"no owner reference on the ConfigMap", "gc",
		[]Edit{{configMapGo, `OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sample, demov1alpha1.GroupVersion.WithKind("Sample"))},`, ""}}},
	{"status carries the time of the pass, and status changes start a reconcile", "status-loop",
		[]Edit{
			{statusGo, `"fmt"`, `"fmt"; "time"`},
			{statusGo, `ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message", configMap)`, `ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message at %d", configMap, time.Now().UnixNano())`},
			{controllerGo, "For(&demov1alpha1.Sample{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).", "For(&demov1alpha1.Sample{}, builder.WithPredicates(predicate.Funcs{}))."},
		}},
	{"a ConfigMap the Sample does not control is written anyway", "conflict",
		[]Edit{{controllerGo, "if !metav1.IsControlledBy(current, sample) {", "if !metav1.IsControlledBy(current, sample) && false {"}}},
	{"a refused write returns its error and leaves status as it was", "refused-write",
		[]Edit{{controllerGo, "syncErr := r.syncConfigMap(ctx, sample)", "syncErr := r.syncConfigMap(ctx, sample)\n\tif syncErr != nil && !errors.Is(syncErr, errConflict) {\n\t\treturn ctrl.Result{}, syncErr\n\t}"}}},
	{"status is written on every pass, changed or not", "skip-when-equal",
		[]Edit{{statusGo, "if equality.Semantic.DeepEqual(status, sample.Status) {", "if equality.Semantic.DeepEqual(status, sample.Status) && false {"}}},
	{"status is written again on every retry of a refused write", "refused-write",
		[]Edit{{statusGo, "if equality.Semantic.DeepEqual(status, sample.Status) {", "if equality.Semantic.DeepEqual(status, sample.Status) && syncErr == nil {"}}},
	{"the operator's client does not read its own writes: a retry soon after a status write finds the status missing", "refused-write",
		[]Edit{{managerGo, "opts.Client.Cache.EnableReadYourWritesConsistency = ptr.To(true)", "opts.Client.Cache.EnableReadYourWritesConsistency = ptr.To(false)"}}},
	{"a ConfigMap that status records as created is never created again (status trusted over the cluster)", "operator-restart",
		[]Edit{{controllerGo, "if apierrors.IsNotFound(err) {", "if apierrors.IsNotFound(err) && sample.Status.ConfigMapName != \"\" {\n\t\treturn nil\n\t}\n\tif apierrors.IsNotFound(err) {"}}},
}
