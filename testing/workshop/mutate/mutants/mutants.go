// Package mutants lists the breaks that the scenarios exist to catch (make mutate).
package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// Edit replaces the one line of File that reads From, indentation aside, with To, indented as it was.
type Edit struct{ File, From, To string }

// Mutant is a break (what it does wrong), the Scenario that must fail against it, and its Edits.
type Mutant struct {
	Break, Scenario string
	Edits           []Edit
}

// Apply makes m's edits to the files under root in memory: each file changed, by its path under
// root. Each edit must find its line once, in the file as the edits before it left it: a line
// that only begins with From is not it.
func (m Mutant) Apply(root string) (map[string]string, error) {
	mutated := map[string]string{}
	for _, e := range m.Edits {
		file := filepath.Join(root, e.File)
		content, ok := mutated[file]
		if !ok {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			content = string(b)
		}
		line := regexp.MustCompile(`(?m)^[ \t]*(` + regexp.QuoteMeta(e.From) + `)$`)
		at := line.FindAllStringSubmatchIndex(content, -1)
		if len(at) != 1 {
			return nil, fmt.Errorf("%s holds the line %q %d times, not once: update the mutant to follow the code", e.File, e.From, len(at))
		}
		mutated[file] = content[:at[0][2]] + e.To + content[at[0][3]:] // the line's text, after its indentation
	}
	return mutated, nil
}

const (
	controllerGo = "controllers/sample_controller.go"
	configMapGo  = "controllers/sample_configmap.go"
	statusGo     = "controllers/sample_status.go"
	managerGo    = "controllers/manager.go"
	conversionGo = "controllers/sample_conversion.go"
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
	{"only a denied create is taken for RBAC: a denied patch of an existing ConfigMap reports ConfigMapRefused", "refused-write",
		[]Edit{{statusGo, "var rbacDenial = regexp.MustCompile(`cannot \\w+ resource \"configmaps\"`)", "var rbacDenial = regexp.MustCompile(`cannot create resource \"configmaps\"`)"}}},
	{"the ConfigMap's message is cut at 1,024 bytes", "validation",
		[]Edit{{configMapGo, "Data: map[string]string{demov1alpha1.MessageKey: sample.Spec.Message},", "Data: map[string]string{demov1alpha1.MessageKey: sample.Spec.Message[:min(len(sample.Spec.Message), 1024)]},"}}},
	{"the message's bound is taken for bytes: the ConfigMap's message is cut at 65,536 bytes", "validation",
		[]Edit{{configMapGo, "Data: map[string]string{demov1alpha1.MessageKey: sample.Spec.Message},", "Data: map[string]string{demov1alpha1.MessageKey: sample.Spec.Message[:min(len(sample.Spec.Message), demov1alpha1.MaxMessageLength)]},"}}},
	{"v1alpha1's message does not become v1beta1's data[\"message\"]", "conversion",
		[]Edit{{conversionGo, `if !kept.NoMessage || src.Spec.Message != "" {`, "if false {"}}},
	{"the conversion to v1alpha1 keeps none of v1beta1's other keys: a v1alpha1 client's write drops them", "conversion",
		[]Edit{{conversionGo, "if len(kept.Data) > 0 || kept.NoMessage {", "if false {"}}},
	{"a ConfigMap that status records as created is never created again (status trusted over the cluster)", "operator-restart",
		[]Edit{{controllerGo, "if apierrors.IsNotFound(err) {", "if apierrors.IsNotFound(err) && sample.Status.ConfigMapName != \"\" {\n\t\treturn nil\n\t}\n\tif apierrors.IsNotFound(err) {"}}},
}
