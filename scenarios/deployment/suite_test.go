// Package deployment proves what config/ promises about the operator as deployed: least
// privilege, an authenticated metrics endpoint, a Pod that meets the restricted Pod Security
// Standard, leader election that fails over and hands over, and a rollout that says why it fails.
// It runs on kind, the operator's image a Pod (make test-e2e-kind, after the scenarios).
package deployment

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/harness"
)

// d is the operator deployed on kind, shared by every spec of this suite.
var d *e2e.Deployment

// lease is the operator's leader election Lease (cmd/main.go's LeaderElectionID).
const lease = "operator-demo.demo.example.com"

func TestDeployment(t *testing.T) {
	RegisterFailHandler(Fail)
	harness.SetDefaults()
	RunSpecs(t, "Deployment")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	var err error
	d, err = e2e.Deploy(ctx, samples.Operator)
	Expect(err).NotTo(HaveOccurred())
})

// Every spec starts from the operator's Deployment rolled out and its conversion webhook answering
// through its Service: a spec before may have scaled its Pods, killed or deleted one, or restarted
// the API server.
var _ = BeforeEach(func(ctx SpecContext) {
	Expect(e2e.WaitRollout(ctx, d.Client, d.Namespace, d.Deployment.Name, e2e.Rollout)).To(Succeed())
	webhookAnswers(ctx)
})

// webhookAnswers waits until the API server's call to the conversion webhook through its Service
// succeeds: a Sample created through v1alpha1 as a dry run, converted on its way to storage and
// stored nowhere. A Pod Ready is not yet one the Service sends to: each node's kube-proxy learns
// of it a moment later, and until then the call is refused.
func webhookAnswers(ctx context.Context) {
	GinkgoHelper()
	Eventually(ctx, func() error {
		return d.Client.Create(ctx, samples.New("default", "probe", "hello world"), client.DryRunAll)
	}).Should(Succeed(), "a dry-run create through v1alpha1, converted by the webhook behind Service %s", d.ConversionService)
}

// syncedConfigMap creates a Sample called name in the default namespace and returns its
// ConfigMap, with the ConfigMap's key, once the operator has synced them.
func syncedConfigMap(ctx context.Context, name string) (*corev1.ConfigMap, client.ObjectKey) {
	GinkgoHelper()
	sample := samples.New("default", name, "hello world")
	Expect(d.Client.Create(ctx, sample)).To(Succeed())
	var cm *corev1.ConfigMap
	Eventually(ctx, func() (err error) {
		cm, err = samples.Check(ctx, d.Client, sample)
		return err
	}).Should(Succeed())
	return cm, client.ObjectKeyFromObject(cm)
}

// drift edits the message of the ConfigMap at key as a user would, again if the operator wrote it
// in between.
func drift(ctx context.Context, key client.ObjectKey, message string) {
	GinkgoHelper()
	Eventually(ctx, func(g Gomega) {
		cm := &corev1.ConfigMap{}
		g.Expect(d.Client.Get(ctx, key, cm)).To(Succeed())
		cm.Data[demov1alpha1.MessageKey] = message
		g.Expect(d.Client.Update(ctx, cm)).To(Succeed())
	}).Should(Succeed())
}

// restored is the wait for the ConfigMap at key to hold its Sample's message again (a
// syncedConfigMap's).
func restored(ctx context.Context, key client.ObjectKey) AsyncAssertion {
	return Eventually(ctx, func(g Gomega) {
		cm := &corev1.ConfigMap{}
		g.Expect(d.Client.Get(ctx, key, cm)).To(Succeed())
		g.Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, "hello world"))
	})
}

// leader is the holder of the operator's Lease: one operator process, which controller-runtime
// names <hostname>_<uid> (a container the kubelet restarts in the same Pod is another holder).
func leader(ctx context.Context) (string, error) {
	l := &coordinationv1.Lease{}
	if err := d.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: lease}, l); err != nil || l.Spec.HolderIdentity == nil {
		return "", err
	}
	return *l.Spec.HolderIdentity, nil
}

// podOf is the Pod of a Lease holder: a Pod's hostname is its name.
func podOf(holder string) string {
	pod, _, _ := strings.Cut(holder, "_")
	return pod
}

// copyOfTheDeployment is config/default's Deployment as rendered, renamed name, with Pods of its
// own (labelled check=name: neither the operator's Deployment nor its metrics Service picks
// them), its manager container changed by change.
func copyOfTheDeployment(name string, change func(container *corev1.Container)) *appsv1.Deployment {
	deployment := d.Manifests.Deployment.DeepCopy()
	deployment.Name = name
	labels := map[string]string{"check": name}
	deployment.Spec.Selector.MatchLabels, deployment.Spec.Template.Labels = labels, labels
	change(&deployment.Spec.Template.Spec.Containers[0])
	return deployment
}
