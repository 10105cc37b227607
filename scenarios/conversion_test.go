package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
)

// Conversion: a Sample reads the same through both versions of the API, v1alpha1 and v1beta1,
// whichever it was written in, and a client of v1alpha1 that changes it keeps what only v1beta1
// can hold.
//
// Lesson: an API served in two versions is stored in one, and the API server converts every read
// and write of the other through the operator's conversion webhook: the conversion is on the path
// of every client, so no client may lose anything through it. Where a version cannot hold what
// another can (v1alpha1 has one message, v1beta1 a map of keys), the conversion carries it
// somewhere it can (an annotation), so that an old client's read-modify-write, which writes back
// all it read, keeps what it never saw.
//
// Source: beyond both sources: issue #53, the Sample's second version (docs/api-versions.md).
//
// By hand (on a cluster where `make deploy` runs the operator, which serves the webhook, docs/api-versions.md):
//
//	kubectl apply -f config/samples/demo_v1alpha1_sample.yaml
//	kubectl get samples.v1beta1.demo.example.com sample-sample -o jsonpath='{.spec.data}'   # {"message":"hello world"}
//	kubectl patch samples.v1beta1.demo.example.com sample-sample --type merge -p '{"spec":{"data":{"colour":"blue"}}}'
//	kubectl patch samples.v1alpha1.demo.example.com sample-sample --type merge -p '{"spec":{"message":"hello again"}}'
//	kubectl get samples.v1beta1.demo.example.com sample-sample -o jsonpath='{.spec.data}'   # {"colour":"blue","message":"hello again"}
var _ = Describe("Sample", Label("conversion"), func() {
	Context("when it is written as v1alpha1 and read as v1beta1", func() {
		It("holds its message as spec.data[\"message\"], and its status as the operator wrote it", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "written-old", "hello world")
			f.EventuallySynced(ctx, sample)

			By("reading it through v1beta1")
			read := &demov1beta1.Sample{}
			Eventually(ctx, func(g Gomega) {
				g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(sample), read)).To(Succeed())
				g.Expect(read.Spec.Data).To(Equal(map[string]string{demov1alpha1.MessageKey: "hello world"}))
			}).Should(Succeed())
			Expect(read.Status).To(Equal(demov1beta1.SampleStatus{
				ObservedGeneration: sample.Status.ObservedGeneration,
				ConfigMapName:      sample.Status.ConfigMapName,
				Conditions:         sample.Status.Conditions,
			}))
		})
	})

	Context("when it is written as v1beta1, then changed through v1alpha1 by a read-modify-write", func() {
		It("keeps the keys of spec.data that v1alpha1 never saw, beside the new message", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)

			By("creating it through v1beta1, with spec.data holding a message and two other keys")
			written := &demov1beta1.Sample{
				ObjectMeta: metav1.ObjectMeta{Name: "written-new", Namespace: f.Namespace},
				Spec: demov1beta1.SampleSpec{Data: map[string]string{
					demov1alpha1.MessageKey: "hello world", "colour": "blue", "size": "large",
				}},
			}
			Expect(f.Client.Create(ctx, written)).To(Succeed())

			By("reading it through v1alpha1, as a client that knows only spec.message")
			old := &demov1alpha1.Sample{ObjectMeta: metav1.ObjectMeta{Name: written.Name, Namespace: f.Namespace}}
			Eventually(ctx, func(g Gomega) {
				g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(old), old)).To(Succeed())
				g.Expect(old.Spec.Message).To(Equal("hello world"))
			}).Should(Succeed())
			f.EventuallySynced(ctx, old)

			By("changing its message through v1alpha1 and writing the whole object back")
			Expect(komega.Update(old, func() { old.Spec.Message = "hello again" })()).To(Succeed())
			f.EventuallySynced(ctx, old)

			By("reading it back through v1beta1")
			read := &demov1beta1.Sample{}
			Eventually(ctx, func(g Gomega) {
				g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(written), read)).To(Succeed())
				g.Expect(read.Spec.Data).To(Equal(map[string]string{
					demov1alpha1.MessageKey: "hello again", "colour": "blue", "size": "large",
				}))
			}).Should(Succeed())
			Expect(read.Annotations).NotTo(HaveKey(demov1alpha1.ConversionDataAnnotation),
				"the annotation that carried v1beta1's other keys through v1alpha1 is v1alpha1's alone")
		})
	})
})
