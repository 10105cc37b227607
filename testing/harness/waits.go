package harness

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/testing/operator"
	"example.com/operator-demo/testing/samples"
)

// EventuallySynced waits until the ConfigMap holds sample's message and the Sample reports
// Ready=True for its current generation (samples.Synced). It refreshes sample and returns the
// ConfigMap as read.
func (f *Fixture) EventuallySynced(ctx context.Context, sample *demov1alpha1.Sample) *corev1.ConfigMap {
	GinkgoHelper()
	var cm *corev1.ConfigMap
	Eventually(ctx, func() error {
		var err error
		cm, err = samples.Check(ctx, f.Client, sample)
		return err
	}).Should(Succeed())
	return cm
}

// EventuallyEverySample waits until the namespace holds n Samples, each reporting Ready=status
// with reason for its current generation.
func (f *Fixture) EventuallyEverySample(ctx context.Context, n int, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	Eventually(ctx, func(g Gomega) {
		list := &demov1alpha1.SampleList{}
		g.Expect(f.Client.List(ctx, list, client.InNamespace(f.Namespace))).To(Succeed())
		g.Expect(list.Items).To(HaveLen(n))
		g.Expect(list.Items).To(HaveEach(HaveReady(status, reason)))
	}).Should(Succeed())
}

// EventuallySettled waits until the operator's counts stop moving (the same across AtRest/3) and
// returns them: the baseline a spec counts from. On e2e one operator serves every spec, and its
// reconciles of the previous spec's deleted objects may still be arriving.
func (f *Fixture) EventuallySettled(ctx context.Context) operator.Counts {
	GinkgoHelper()
	var settled operator.Counts
	// Polled every AtRest/3: counts that stayed the same across one interval have settled.
	Eventually(ctx, func(g Gomega) {
		previous := settled
		var err error
		settled, err = f.Operator.Counts()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(settled).To(Equal(previous))
	}).WithPolling(AtRest / 3).Should(Succeed())
	return settled
}

// ExpectAtRest watches, for AtRest, that the operator's counts keep matching counts and that none
// of objects moves from the resourceVersion it holds now: nothing the operator does writes them.
// objects are read afresh as it goes.
func (f *Fixture) ExpectAtRest(ctx context.Context, counts types.GomegaMatcher, objects ...client.Object) {
	GinkgoHelper()
	versions := make([]string, len(objects))
	for i, obj := range objects {
		versions[i] = obj.GetResourceVersion()
	}
	Consistently(ctx, func(g Gomega) {
		g.Expect(f.Operator.Counts()).To(counts)
		for i, obj := range objects {
			g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			g.Expect(obj.GetResourceVersion()).To(Equal(versions[i]), "the resourceVersion of %s", describe(obj))
		}
	}).Should(Succeed())
}

func describe(obj client.Object) string {
	return fmt.Sprintf("%T %s/%s", obj, obj.GetNamespace(), obj.GetName())
}
