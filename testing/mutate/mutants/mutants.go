// Package mutants lists the ways to break the controller that the scenarios exist to catch, each
// with the scenario that must fail against it. `make mutate` (testing/mutate) builds each into the
// operator and runs its scenario; the catalogue lists them under their scenarios.
package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Edit replaces the one occurrence of From in File (relative to the repository root) with To.
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

// Apply makes m's edits to the files under root, in memory, and returns the mutated content of
// each file it touched, by path relative to root. An edit whose From is not in its file exactly
// once is an error: the mutant has gone stale and must follow the code.
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
		if n := strings.Count(content, e.From); n != 1 {
			return nil, fmt.Errorf("%s holds %q %d times, not once: update the mutant to follow the code", e.File, e.From, n)
		}
		mutated[e.File] = strings.Replace(content, e.From, e.To, 1)
	}
	return mutated, nil
}

const (
	controllerGo = "controllers/sample_controller.go"
	configMapGo  = "controllers/sample_configmap.go"
	statusGo     = "controllers/sample_status.go"
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
	{"the article's first stage watches ConfigMaps too", "unwatched-drift",
		[]Edit{{controllerGo, "if opts.Wiring == WatchSamplesAndConfigMaps {", "if true {"}}},
	{"no watch on owned ConfigMaps", "owned-drift",
		[]Edit{{controllerGo, "if opts.Wiring == WatchSamplesAndConfigMaps {", "if false {"}}},
	{"the whole data map is replaced, dropping others' keys", "owned-drift",
		[]Edit{{configMapGo, "dataChanged := overlay(&merged.Data, desired.Data)", "dataChanged := merged.Data[demov1alpha1.MessageKey] != desired.Data[demov1alpha1.MessageKey]; merged.Data = desired.Data"}}},
	{"the managed-by label is not put back: a ConfigMap stripped of it leaves the cache for good", "owned-drift",
		[]Edit{{configMapGo, "labelsChanged := overlay(&merged.Labels, desired.Labels)", "labelsChanged := false"}}},
	{"no owner reference on the ConfigMap", "gc",
		[]Edit{{configMapGo, `OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sample, demov1alpha1.GroupVersion.WithKind("Sample"))},`, ""}}},
	{"status carries the time of the pass, and status changes start a reconcile", "status-loop",
		[]Edit{
			{statusGo, `"fmt"`, `"fmt"; "time"`},
			{statusGo, `ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message", configMap)`, `ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message at %d", configMap, time.Now().UnixNano())`},
			{controllerGo, "builder.WithPredicates(predicate.GenerationChangedPredicate{})", "builder.WithPredicates(predicate.Funcs{})"},
		}},
	{"a ConfigMap the Sample does not control is written anyway", "conflict",
		[]Edit{{controllerGo, "if !metav1.IsControlledBy(current, sample) {", "if !metav1.IsControlledBy(current, sample) && false {"}}},
	{"a refused write returns its error and leaves status as it was", "refused-write",
		[]Edit{{controllerGo, "	syncErr := r.syncConfigMap(ctx, sample)\n", "	syncErr := r.syncConfigMap(ctx, sample)\n\tif _, conflict := errors.AsType[*conflictError](syncErr); syncErr != nil && !conflict {\n\t\treturn ctrl.Result{}, syncErr\n\t}\n"}}},
	{"status is written again on every retry of a refused write", "refused-write",
		[]Edit{{statusGo, "	if equality.Semantic.DeepEqual(status, sample.Status) {", "	if equality.Semantic.DeepEqual(status, sample.Status) && syncErr == nil {"}}},
	{"a ConfigMap that status records as created is never created again (status trusted over the cluster)", "operator-restart",
		[]Edit{{controllerGo, "	if apierrors.IsNotFound(err) {", "	if apierrors.IsNotFound(err) && sample.Status.ConfigMapName != \"\" {\n\t\treturn nil\n\t}\n\tif apierrors.IsNotFound(err) {"}}},
}
