package scenarios

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
)

// Invalid input: the API server rejects a Sample that could not be kept in a ConfigMap, and says
// which field is wrong.
//
// Lesson: validation belongs in the CRD's schema (OpenAPI bounds and CEL rules), where the API
// server enforces it before anything is stored. A controller that validates instead finds the bad
// object already stored and can only report it after the fact.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §8.1, where spec.message enters the CRD: what the API server refuses, and how it says
// so.
//
// By hand:
//
//	kubectl apply -f - <<< '{"apiVersion":"demo.example.com/v1alpha1","kind":"Sample","metadata":{"name":"bad"},"spec":{"message":42}}'
//	# The Sample "bad" is invalid: spec.message: Invalid value: "integer": spec.message in body must be of type string
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
})
