package deployment

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/scenarios/samples"
)

var _ = Describe("The operator's ServiceAccount, bound to exactly config/rbac", func() {
	DescribeTable("may do what the operator needs and nothing else",
		func(ctx SpecContext, verb, group, resource, subresource, namespace string, allowed bool) {
			c, err := client.New(d.OperatorConfig, client.Options{Scheme: samples.Operator.Scheme})
			Expect(err).NotTo(HaveOccurred())
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Verb: verb, Group: group, Resource: resource, Subresource: subresource, Namespace: namespace,
				},
			}}
			Expect(c.Create(ctx, review)).To(Succeed())
			Expect(review.Status.Allowed).To(Equal(allowed), "%s %s/%s %s in %q: %s", verb, group, resource, subresource, namespace, review.Status.Reason)
		},
		Entry("watch Samples", "watch", "demo.example.com", "samples", "", "", true),
		Entry("update a Sample's spec: no", "update", "demo.example.com", "samples", "", "default", false),
		Entry("patch a Sample's status", "patch", "demo.example.com", "samples", "status", "default", true),
		Entry("delete a Sample: no", "delete", "demo.example.com", "samples", "", "default", false),
		Entry("watch ConfigMaps", "watch", "", "configmaps", "", "", true),
		Entry("create a ConfigMap", "create", "", "configmaps", "", "default", true),
		Entry("patch a ConfigMap", "patch", "", "configmaps", "", "default", true),
		Entry("update a ConfigMap: no, every write is a patch", "update", "", "configmaps", "", "default", false),
		Entry("delete a ConfigMap: no, the garbage collector does", "delete", "", "configmaps", "", "default", false),
		Entry("read a Secret: no", "get", "", "secrets", "", "default", false),
		Entry("list Secrets: no", "list", "", "secrets", "", "", false),
		Entry("create a Pod: no", "create", "", "pods", "", "default", false),
		Entry("record an event", "create", "events.k8s.io", "events", "", "default", true),
		Entry("hold its Lease, in its own namespace", "update", "coordination.k8s.io", "leases", "", "operator-demo-system", true),
		Entry("touch a Lease elsewhere: no", "update", "coordination.k8s.io", "leases", "", "kube-system", false),
	)

	DescribeTable("may keep its conversion webhook's certificate and CA where they go, and nowhere else",
		func(ctx SpecContext, verb, group, resource, name, namespace string, allowed bool) {
			c, err := client.New(d.OperatorConfig, client.Options{Scheme: samples.Operator.Scheme})
			Expect(err).NotTo(HaveOccurred())
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Name: name, Namespace: namespace},
			}}
			Expect(c.Create(ctx, review)).To(Succeed())
			Expect(review.Status.Allowed).To(Equal(allowed), "%s %s/%s %q in %q: %s", verb, group, resource, name, namespace, review.Status.Reason)
		},
		Entry("watch the Secrets of its own namespace, where its certificate is", "watch", "", "secrets", "", "operator-demo-system", true),
		Entry("update the Secret of its certificate", "update", "", "secrets", "operator-demo-webhook-server-cert", "operator-demo-system", true),
		Entry("update another Secret of its namespace: no", "update", "", "secrets", "other", "operator-demo-system", false),
		Entry("create a Secret of its namespace: no, its certificate's is deployed empty", "create", "", "secrets", "", "operator-demo-system", false),
		Entry("watch CRDs", "watch", "apiextensions.k8s.io", "customresourcedefinitions", "", "", true),
		Entry("update the Sample CRD, to write its CA into the conversion", "update", "apiextensions.k8s.io", "customresourcedefinitions", "samples.demo.example.com", "", true),
		Entry("update another CRD: no", "update", "apiextensions.k8s.io", "customresourcedefinitions", "widgets.example.com", "", false),
		Entry("delete the Sample CRD: no", "delete", "apiextensions.k8s.io", "customresourcedefinitions", "samples.demo.example.com", "", false),
	)

	It("is refused when it tries to list Secrets", func(ctx SpecContext) {
		c, err := client.New(d.OperatorConfig, client.Options{Scheme: samples.Operator.Scheme})
		Expect(err).NotTo(HaveOccurred())
		err = c.List(ctx, &corev1.SecretList{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "listing Secrets as the operator: %v", err)
	})
})
