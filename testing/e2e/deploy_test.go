package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubernetesfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestTheForwardGoesToAReadyPod: each scrape's forward chooses as kubectl port-forward does, a
// Ready Pod of the Deployment's before one that only runs, never one that terminates.
func TestTheForwardGoesToAReadyPod(t *testing.T) {
	labels := map[string]string{"app": "operator"}
	pod := func(name string, phase corev1.PodPhase, ready bool, deleted bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", Labels: labels}, Status: corev1.PodStatus{Phase: phase}}
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		if deleted {
			now := metav1.Now()
			p.DeletionTimestamp, p.Finalizers = &now, []string{"kubernetes"}
		}
		return p
	}
	d := &Deployment{Manifests: Manifests{Namespace: "demo", Deployment: &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: "demo"},
		Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}}}
	for want, pods := range map[string][]*corev1.Pod{
		"b-ready":   {pod("a-terminating", corev1.PodRunning, true, true), pod("a-running", corev1.PodRunning, false, false), pod("b-ready", corev1.PodRunning, true, false)},
		"a-running": {pod("a-pending", corev1.PodPending, false, false), pod("a-running", corev1.PodRunning, false, false)},
		"":          {pod("a-terminating", corev1.PodRunning, true, true)},
	} {
		b := fake.NewClientBuilder()
		for _, p := range pods {
			b = b.WithObjects(p)
		}
		d.Client = b.Build()
		got, err := d.serving(context.Background())
		if got != want || (want == "") != (err != nil) {
			t.Errorf("serving = %q, %v; want %q", got, err, want)
		}
	}
}

// TestLogsAreTheLastLinesOfEachContainer: a failed spec shows the last lines of each container of
// the Deployment's Pods, as the kubelet tails them, and of the container before its last restart
// where it restarted (before the current one), each after its name, and nothing else.
func TestLogsAreTheLastLinesOfEachContainer(t *testing.T) {
	labels := map[string]string{"app": "operator"}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "operator-1", Namespace: "demo", Labels: labels},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: "manager", RestartCount: 1}, {Name: "sidecar"},
		}},
	}
	cs := kubernetesfake.NewClientset()
	cs.PrependReactor("get", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		get, ok := action.(k8stesting.GenericAction)
		if !ok || action.GetSubresource() != "log" {
			return false, nil, nil
		}
		opts, ok := get.GetValue().(*corev1.PodLogOptions)
		if !ok {
			return true, nil, fmt.Errorf("%s: no PodLogOptions", action)
		}
		log := fmt.Sprintf("%s, previous %t, last %d lines\n", opts.Container, opts.Previous, *opts.TailLines)
		return true, &runtime.Unknown{Raw: []byte(log)}, nil
	})
	d := &Deployment{cs: cs, Client: fake.NewClientBuilder().WithObjects(pod).Build(), Manifests: Manifests{Namespace: "demo", Deployment: &appsv1.Deployment{
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}}}
	want := `
--- last lines of Pod operator-1, container manager (previous: true)
manager, previous true, last 20 lines

--- last lines of Pod operator-1, container manager (previous: false)
manager, previous false, last 20 lines

--- last lines of Pod operator-1, container sidecar (previous: false)
sidecar, previous false, last 20 lines
`
	if diff := cmp.Diff(want, d.logs(20)); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

// TestAKilledOperatorsPodsAreDeletedAtOnce: the kill scales the Deployment to 0 and deletes its
// Pods with a grace period of 0. A container the kill left is started again by the kubelet, and
// a Pod deleted gracefully keeps it up to its terminationGracePeriodSeconds (40 s): long enough
// for it to take the dead leader's lease (15 s) and finish the work the kill interrupted.
func TestAKilledOperatorsPodsAreDeletedAtOnce(t *testing.T) {
	labels := map[string]string{"app": "operator"}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: "demo"},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", Labels: labels}}
	}
	var deleted []string
	c := fake.NewClientBuilder().WithObjects(pod("operator-1"), pod("operator-2"), deploy.DeepCopy()).WithInterceptorFuncs(interceptor.Funcs{
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			o := &client.DeleteOptions{}
			o.ApplyOptions(opts)
			deleted = append(deleted, fmt.Sprintf("%s, grace period %v", obj.GetName(), ptr.Deref(o.GracePeriodSeconds, -1)))
			return c.Delete(ctx, obj, opts...)
		},
	}).Build()
	d := &Deployment{Client: c, Manifests: Manifests{Namespace: "demo", Deployment: deploy}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // the fake runs no ReplicaSet controller: Pods not deleted stay
	defer cancel()
	if err := d.kill(ctx); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if diff := cmp.Diff([]string{"operator-1, grace period 0", "operator-2, grace period 0"}, deleted); diff != "" {
		t.Errorf("the Pods the kill deleted (-want +got):\n%s", diff)
	}
	got := &appsv1.Deployment{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(deploy), got); err != nil || ptr.Deref(got.Spec.Replicas, -1) != 0 {
		t.Errorf("the Deployment after the kill: replicas %v (%v), want 0", ptr.Deref(got.Spec.Replicas, -1), err)
	}
}
