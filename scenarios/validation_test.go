package scenarios

import (
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
)

// Invalid input: the API server rejects a Sample that could not be kept in a ConfigMap, in either
// version of the API, and says which field is wrong.
//
// Lesson: validation belongs in the CRD's schema (OpenAPI bounds and CEL rules), where the API
// server enforces it before anything is stored. A controller that validates instead finds the bad
// object already stored and can only report it after the fact. And a bound is a promise that what
// it admits is kept whole: spec.message's maxLength counts characters (Unicode code points, as the
// API server counts every maxLength), not bytes, so 65,536 characters may take up to 256 KiB in
// UTF-8, and its ConfigMap, which may hold 1 MiB, keeps every one of them. Each version has its
// own schema: v1beta1's spec.data is bounded as a ConfigMap's data is (its keys, its size), so
// that what it admits, the API server also admits as a ConfigMap.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §8.1, where spec.message enters the CRD: what the API server refuses, and how it says
// so.
//
// By hand:
//
//	kubectl apply -f - <<< '{"apiVersion":"demo.example.com/v1alpha1","kind":"Sample","metadata":{"name":"bad"},"spec":{"message":42}}'
//	# The Sample "bad" is invalid: spec.message: Invalid value: "integer": spec.message in body must be of type string
//	kubectl apply -f - <<< '{"apiVersion":"demo.example.com/v1beta1","kind":"Sample","metadata":{"name":"bad"},"spec":{"data":{"a/b":"c"}}}'
//	# The Sample "bad" is invalid: spec.data: Invalid value: each key must be a ConfigMap key: …
var _ = Describe("Sample", Label("validation"), func() {
	Context("when its spec is invalid", func() {
		DescribeTable("is rejected by the API server with a message naming the field",
			func(ctx SpecContext, name string, spec map[string]any, want string) {
				f := samples.NewFixture(ctx, suiteCluster)
				sample := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": demov1alpha1.GroupVersion.String(),
					"kind":       "Sample",
					"metadata":   map[string]any{"name": name, "namespace": f.Namespace},
					"spec":       spec,
				}}
				// Strict, as kubectl is by default: unknown fields are errors, not silently dropped.
				err := f.Client.Create(ctx, sample, client.FieldValidation("Strict"))
				Expect(err).To(HaveOccurred())
				Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "got %v", err)
				Expect(err.Error()).To(ContainSubstring(want))
			},
			Entry("a message longer than the bound", "long", map[string]any{"message": strings.Repeat("x", demov1alpha1.MaxMessageLength+1)},
				"spec.message: Too long"),
			Entry("a message that is not a string", "typed", map[string]any{"message": 42},
				`spec.message: Invalid value: "integer"`),
			Entry("no message", "empty", map[string]any{},
				"spec.message: Required value"),
			Entry("an unknown field", "unknown", map[string]any{"message": "hi", "colour": "blue"},
				`unknown field "spec.colour"`),
			Entry("a name too long for \"<name>-config\"", strings.Repeat("n", demov1alpha1.MaxNameLength+1), map[string]any{"message": "hi"},
				"metadata.name must be at most 246 characters"),
		)

		It("accepts the longest message and the longest name", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			f.CreateSample(ctx, strings.Repeat("n", demov1alpha1.MaxNameLength), strings.Repeat("x", demov1alpha1.MaxMessageLength))
		})
	})

	Context("when it is written as v1beta1 and its spec.data is invalid", func() {
		DescribeTable("is rejected by the API server with a message naming the field",
			func(ctx SpecContext, name string, spec map[string]any, want string) {
				expectRefused(ctx, demov1beta1.GroupVersion.String(), name, spec, want)
			},
			Entry("more keys than a Sample may hold", "many", map[string]any{"data": manyKeys(demov1beta1.MaxDataKeys+1, "x")},
				"spec.data: Too many: 17"),
			Entry("a key that is not a ConfigMap key", "slash", map[string]any{"data": map[string]any{"a/b": "x"}},
				"spec.data: Invalid value: each key must be a ConfigMap key"),
			Entry("a key \"..\" or beginning with it", "dots", map[string]any{"data": map[string]any{"..hidden": "x"}},
				"spec.data: Invalid value: each key must be a ConfigMap key"),
			Entry("a key longer than a ConfigMap's", "long-key", map[string]any{"data": map[string]any{strings.Repeat("k", demov1beta1.MaxDataKeyLength+1): "x"}},
				"spec.data: Invalid value: each key must be a ConfigMap key"),
			Entry("a value longer than the bound", "long-value", map[string]any{"data": map[string]any{"message": strings.Repeat("x", demov1beta1.MaxDataValueLength+1)}},
				"spec.data: Invalid value: each value must be at most 65536 characters"),
			Entry("more than a ConfigMap's 1 MiB in all, each value within its bound", "large", map[string]any{"data": manyKeys(5, strings.Repeat("😀", demov1beta1.MaxDataValueLength))},
				"spec.data: Invalid value: keys and values must hold at most 1 MiB"),
			Entry("a value that is not a string", "typed", map[string]any{"data": map[string]any{"message": 42}},
				`spec.data.message: Invalid value: "integer"`),
			Entry("v1alpha1's message, which v1beta1 does not have", "message", map[string]any{"message": "hi"},
				`unknown field "spec.message"`),
		)

		It("accepts sixteen keys, the longest key and the longest value", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := &demov1beta1.Sample{ObjectMeta: metav1.ObjectMeta{Name: "fullest", Namespace: f.Namespace}}
			sample.Spec.Data = map[string]string{strings.Repeat("k", demov1beta1.MaxDataKeyLength): strings.Repeat("x", demov1beta1.MaxDataValueLength)}
			for i := len(sample.Spec.Data); i < demov1beta1.MaxDataKeys; i++ {
				sample.Spec.Data[fmt.Sprintf("key-%d", i)] = "x"
			}
			Expect(f.Client.Create(ctx, sample, client.FieldValidation("Strict"))).To(Succeed())
		})
	})

	Context("when its message is as long as the bound allows", func() {
		// Characterization: written after the ConfigMap builder it proves, when a break that cut
		// the ConfigMap's message at 1,024 bytes failed no spec: none wrote a long message, or one
		// of characters wider than a byte, and read it back.
		It("keeps all 65,536 characters, the bound counted in characters and not bytes, whole in its ConfigMap, created and changed", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			message := strings.Repeat(everyWidth, demov1alpha1.MaxMessageLength/utf8.RuneCountInString(everyWidth))
			Expect([]int{utf8.RuneCountInString(message), len(message)}).To(Equal([]int{65536, 163840}), "characters and bytes of the message")

			By("creating a Sample whose message is 65,536 characters of one, two, three and four bytes in UTF-8, 163,840 bytes in all")
			sample := f.CreateSample(ctx, "longest", message)

			By("waiting for its ConfigMap to hold that message whole, character for character")
			f.EventuallySynced(ctx, sample)

			By("changing only its last character")
			Expect(komega.Update(sample, func() {
				sample.Spec.Message = strings.TrimSuffix(message, "😀") + "😺"
			})()).To(Succeed())

			By("waiting for its ConfigMap to hold the changed message whole")
			cm := f.EventuallySynced(ctx, sample)
			Expect(cm.Data[demov1alpha1.MessageKey]).To(HaveSuffix("中😺"))
		})
	})
})

// expectRefused creates, in a namespace of its own, the Sample name of apiVersion with spec, and
// expects the API server to refuse it as invalid, saying want (as v1alpha1's table does, inline).
func expectRefused(ctx SpecContext, apiVersion, name string, spec map[string]any, want string) {
	GinkgoHelper()
	f := samples.NewFixture(ctx, suiteCluster)
	sample := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       "Sample",
		"metadata":   map[string]any{"name": name, "namespace": f.Namespace},
		"spec":       spec,
	}}
	// Strict, as kubectl is by default: unknown fields are errors, not silently dropped.
	err := f.Client.Create(ctx, sample, client.FieldValidation("Strict"))
	Expect(err).To(HaveOccurred())
	Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "got %v", err)
	Expect(err.Error()).To(ContainSubstring(want))
}

// manyKeys is spec.data of n keys, "key-0" to "key-<n-1>", each holding value.
func manyKeys(n int, value string) map[string]any {
	d := map[string]any{}
	for i := range n {
		d[fmt.Sprintf("key-%d", i)] = value
	}
	return d
}

// everyWidth is four characters, one of each width UTF-8 has: one byte, two, three and four.
const everyWidth = "aé中😀"
