package scenarios

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1beta1ac "example.com/operator-demo/api/applyconfiguration/api/v1beta1"
	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
)

// Field ownership: the operator owns, as field manager operator-demo, exactly what it manages:
// of the ConfigMap, the keys of spec.data, its label and its controller reference; of the Sample's
// status, its Ready condition, observedGeneration and configMapName. Everything else is someone
// else's, and stays as they wrote it.
//
// Lesson: server-side apply records, field by field, who set what (metadata.managedFields). An
// operator that applies with one fixed field owner can be read back: what it owns is what it
// manages, and a field it does not own is one it will never touch. The same holds for status: a
// condition that another controller adds survives the operator's status writes, because the
// operator applies its own condition, not the whole list it last read.
//
// Source: beyond both sources: issue #53, server-side apply as the one write path
// (docs/api-versions.md).
//
// By hand:
//
//	kubectl get configmap sample-sample-config -o yaml --show-managed-fields   # manager operator-demo, operation Apply
//	kubectl get samples.v1beta1.demo.example.com sample-sample -o yaml --show-managed-fields --subresource status
var _ = Describe("Sample", Label("field-ownership"), func() {
	Context("when the operator has written its ConfigMap", func() {
		It("owns, as field manager operator-demo, exactly the keys of spec.data, its label and its controller reference", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSampleData(ctx, "owned", map[string]string{"message": "hello world", "colour": "blue"})
			cm := f.EventuallySynced(ctx, sample)

			By("adding a key of someone else's, which the operator must not take")
			Expect(komega.Update(cm, func() { cm.Data["extra"] = "someone else's" })()).To(Succeed())

			By("reading what operator-demo applied, from the ConfigMap's managedFields")
			Expect(komega.Get(sample)()).To(Succeed())
			Expect(appliedBy(cm.ManagedFields, "operator-demo")).To(ConsistOf(
				"data.colour",
				"data.message",
				"metadata.labels.app.kubernetes.io/managed-by",
				`metadata.ownerReferences{"uid":"`+string(sample.UID)+`"}`, // an owner reference is atomic: owned whole
			))
		})
	})

	Context("when another controller adds a condition to the Sample's status", func() {
		// Characterization: written after the status write it proves, when the move to server-side
		// apply made it a property of the write path: the operator's merge patch wrote back the whole
		// list of conditions it had read, and kept others' only while its cache held them.
		It("keeps that condition through the operator's next status write", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSampleData(ctx, "audited", map[string]string{"message": "hello world"})
			f.EventuallySynced(ctx, sample)

			By("applying a condition Audited to the status, as field manager auditor")
			audited := demov1beta1ac.Sample(sample.Name, sample.Namespace).WithStatus(demov1beta1ac.SampleStatus().
				WithConditions(metav1ac.Condition().WithType("Audited").WithStatus(metav1.ConditionTrue).
					WithReason("Reviewed").WithMessage("checked by the auditor").WithLastTransitionTime(metav1.Now())))
			Expect(f.Client.Status().Apply(ctx, audited, client.FieldOwner("auditor"))).To(Succeed())

			By("changing spec.data, so that the operator writes status for the new generation")
			Expect(samples.MergePatch(ctx, f.Client, sample, sample.Namespace, sample.Name, `{"spec":{"data":{"message":"hello again"}}}`)).To(Succeed())
			f.EventuallySynced(ctx, sample)

			By("checking that both conditions are there")
			Expect(sample.Status.Conditions).To(ConsistOf(
				HaveField("Type", demov1alpha1.ConditionReady),
				And(HaveField("Type", "Audited"), HaveField("Reason", "Reviewed")),
			))
		})
	})
})

// appliedBy is what manager applied (operation Apply), as the paths of the fields it owns: "data.message",
// `metadata.ownerReferences{"uid":"…"}.kind`, in the words of metadata.managedFields, whose FieldsV1
// names each field f:<name>, each list item of a keyed list k:<its key>, and the item itself ".".
func appliedBy(managed []metav1.ManagedFieldsEntry, manager string) []string {
	GinkgoHelper()
	var paths []string
	for _, entry := range managed {
		if entry.Manager != manager || entry.Operation != metav1.ManagedFieldsOperationApply {
			continue
		}
		var fields map[string]any
		Expect(json.Unmarshal(entry.FieldsV1.GetRawBytes(), &fields)).To(Succeed())
		paths = append(paths, leaves("", fields)...)
	}
	return paths
}

// leaves are the paths under prefix of the fields of a FieldsV1 set, leaf by leaf.
func leaves(prefix string, fields map[string]any) []string {
	var paths []string
	for name, sub := range fields {
		if name == "." {
			continue
		}
		path := prefix
		switch {
		case strings.HasPrefix(name, "f:"):
			path += "." + strings.TrimPrefix(name, "f:")
		default: // k:{...}, a list item by its key
			path += strings.TrimPrefix(name, "k:")
		}
		path = strings.TrimPrefix(path, ".")
		if children, ok := sub.(map[string]any); ok && len(children) > 0 && (len(children) > 1 || children["."] == nil) {
			paths = append(paths, leaves(path, children)...)
			continue
		}
		paths = append(paths, path)
	}
	return paths
}
