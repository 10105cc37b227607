// Package mutants lists the breaks that the scenarios exist to catch (make mutate): of the
// operator's code, and of the manifests it ships.
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
	controllerGo  = "controllers/sample_controller.go"
	configMapGo   = "controllers/sample_configmap.go"
	statusGo      = "controllers/sample_status.go"
	managerGo     = "controllers/manager.go"
	conversionGo  = "controllers/sample_conversion.go"
	migrationYAML = "config/migration/samples.yaml"
)

// All are the mutants, in the catalogue's reading order of their scenarios.
//
//nolint:goconst // scenario labels, written as the scenarios write them
var All = []Mutant{
	{"the ConfigMap's own Create event reconciles the Sample again", "create",
		[]Edit{{controllerGo, "CreateFunc: func(event.CreateEvent) bool { return false },", "CreateFunc: func(event.CreateEvent) bool { return true },"}}},
	{"every pass applies the ConfigMap, changed or not", "skip-when-equal",
		[]Edit{{controllerGo, "if owned, err := corev1ac.ExtractConfigMap(current, FieldOwner); err == nil && equality.Semantic.DeepEqual(owned, desired) {", "if owned, err := corev1ac.ExtractConfigMap(current, FieldOwner); err == nil && equality.Semantic.DeepEqual(owned, desired) && false {"}}},
	{"the Ready condition is stamped afresh on every pass", "skip-when-equal",
		[]Edit{{statusGo, "meta.SetStatusCondition(&status.Conditions, ready)", "meta.RemoveStatusCondition(&status.Conditions, ready.Type); meta.SetStatusCondition(&status.Conditions, ready)"}}},
	{"a changed spec never reaches an existing ConfigMap", "update",
		[]Edit{{controllerGo, "if owned, err := corev1ac.ExtractConfigMap(current, FieldOwner); err == nil && equality.Semantic.DeepEqual(owned, desired) {", "if owned, err := corev1ac.ExtractConfigMap(current, FieldOwner); err == nil && (owned != nil || equality.Semantic.DeepEqual(owned, desired)) {"}}},
	{"no watch on owned ConfigMaps: their events start no reconcile", "owned-drift",
		[]Edit{{controllerGo, "CreateFunc: func(event.CreateEvent) bool { return false },",
			"CreateFunc: func(event.CreateEvent) bool { return false }, UpdateFunc: func(event.UpdateEvent) bool { return false }, DeleteFunc: func(event.DeleteEvent) bool { return false },"}}},
	{"the owner reference is not a controller reference", "gc",
		[]Edit{{configMapGo, "WithController(true).", "WithController(false)."}}},
	{"status carries the time of the pass, and status changes start a reconcile", "status-loop",
		[]Edit{
			{statusGo, `"fmt"`, `"fmt"; "time"`},
			{statusGo, `ready.Message = fmt.Sprintf("ConfigMap %s matches the Sample's spec", configMap)`, `ready.Message = fmt.Sprintf("ConfigMap %s matches the Sample's spec at %d", configMap, time.Now().UnixNano())`},
			{controllerGo, "For(&demov1beta1.Sample{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).", "For(&demov1beta1.Sample{}, builder.WithPredicates(predicate.Funcs{}))."},
		}},
	{"a ConfigMap the Sample does not control is written anyway", "conflict",
		[]Edit{{controllerGo, "case !metav1.IsControlledBy(current, sample):", "case !metav1.IsControlledBy(current, sample) && false:"}}},
	{"any owner reference is taken for control: a ConfigMap that names the Sample as a mere owner is applied over", "conflict",
		[]Edit{{controllerGo, "case !metav1.IsControlledBy(current, sample):", "case !slices.ContainsFunc(current.OwnerReferences, func(ref metav1.OwnerReference) bool { return ref.UID == sample.UID }):"}}},
	{"a ConfigMap missing from the cache is taken for none: someone else's of that name, which the cache never holds, is applied over", "conflict",
		[]Edit{{controllerGo, "err = r.APIReader.Get(ctx, key, current)", "err = r.Get(ctx, key, current)"}}},
	{"an update names no uid: someone else's ConfigMap, put in the place of the one the cache shows, is applied over", "conflict",
		[]Edit{{controllerGo, "return r.apply(ctx, sample, desired.WithUID(current.UID), EventUpdated)", "return r.apply(ctx, sample, desired, EventUpdated)"}}},
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
	{"the ConfigMap's values are cut at 1,024 bytes", "validation",
		[]Edit{{configMapGo, "WithData(sample.Spec.Data)", "WithData(func() map[string]string { d := map[string]string{}; for k, v := range sample.Spec.Data { d[k] = v[:min(len(v), 1024)] }; return d }())"}}},
	{"the values' bound is taken for bytes: the ConfigMap's values are cut at 65,536 bytes", "validation",
		[]Edit{{configMapGo, "WithData(sample.Spec.Data)", "WithData(func() map[string]string { d := map[string]string{}; for k, v := range sample.Spec.Data { d[k] = v[:min(len(v), demov1beta1.MaxDataValueLength)] }; return d }())"}}},
	{"v1alpha1's message does not become v1beta1's data[\"message\"]", "conversion",
		[]Edit{{conversionGo, `if !kept.NoMessage || src.Spec.Message != "" {`, "if false {"}}},
	{"the conversion to v1alpha1 keeps none of v1beta1's other keys: a v1alpha1 client's write drops them", "conversion",
		[]Edit{{conversionGo, "if len(kept.Data) > 0 || kept.NoMessage {", "if false {"}}},
	{"the ConfigMap is applied under a field manager for each kind of write: what its create applied, its updates never remove", "data",
		[]Edit{{controllerGo, "if err := r.Apply(ctx, desired, client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {", "if err := r.Apply(ctx, desired, client.FieldOwner(FieldOwner+\"-\"+reason), client.ForceOwnership); err != nil {"}}},
	{"what the release before server-side apply wrote stays co-owned by its field manager: a key removed from spec.data after the upgrade stays", "handover",
		[]Edit{{controllerGo, "patch, err := csaupgrade.UpgradeManagedFieldsPatch(current, sets.New(PreviousFieldManager), FieldOwner)", "patch, err := csaupgrade.UpgradeManagedFieldsPatch(current, sets.New[string](), FieldOwner)"}}},
	{"the StorageVersionMigration rewrites another resource than the Samples (the ConfigMaps): the Samples stored as v1alpha1 stay so, and storedVersions keeps naming v1alpha1", "storage-migration",
		[]Edit{{migrationYAML, "group: demo.example.com", `group: ""`}, {migrationYAML, "resource: samples", "resource: configmaps"}}},
	{"a ConfigMap that status records as created is never created again (status trusted over the cluster)", "operator-restart",
		[]Edit{{controllerGo, "case current == nil:", "case current == nil && sample.Status.ConfigMapName != \"\":\n\t\treturn nil\n\tcase current == nil:"}}},
}
