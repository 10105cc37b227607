package harness

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestHaveOwnerFindsWhatTheOperatorMade: a spec's cleanup waits for the objects of the kind the
// operator reconciles and for those they own, of every owned kind, whatever their labels.
func TestHaveOwnerFindsWhatTheOperatorMade(t *testing.T) {
	g := NewWithT(t)
	object := func(kind string, owners ...string) unstructured.Unstructured {
		u := unstructured.Unstructured{}
		u.SetKind(kind)
		refs := make([]metav1.OwnerReference, 0, len(owners))
		for _, o := range owners {
			refs = append(refs, metav1.OwnerReference{Kind: o, Name: "x"})
		}
		u.SetOwnerReferences(refs)
		return u
	}
	g.Expect(object("Widget")).To(HaveOwner("Widget"), "the kind itself")
	g.Expect(object("Job", "Deployment", "Widget")).To(HaveOwner("Widget"), "a Job it owns")
	g.Expect(object("Secret", "Widget")).To(HaveOwner("Widget"), "a Secret it owns too")
	g.Expect(object("ConfigMap")).NotTo(HaveOwner("Widget"), "someone else's ConfigMap")
	g.Expect(object("ConfigMap", "Gadget")).NotTo(HaveOwner("Widget"), "a ConfigMap of another owner")
}
