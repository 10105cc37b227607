package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// manager is the operator's container as config/manager has it: its memory limit.
func manager() corev1.Container {
	return corev1.Container{
		Name: "manager",
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
			corev1.ResourceMemory: resource.MustParse("128Mi"),
		}},
	}
}

func pod(c corev1.Container, status corev1.ContainerStatus) *corev1.Pod {
	status.Name = c.Name
	return &corev1.Pod{
		Spec:   corev1.PodSpec{Containers: []corev1.Container{c}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{status}},
	}
}

func event(kind, reason, message string) corev1.Event {
	return corev1.Event{Type: kind, Reason: reason, Message: message,
		InvolvedObject: corev1.ObjectReference{FieldPath: "spec.containers{manager}"}}
}

func TestPodTroubleNamesWhatTheKubeletSaw(t *testing.T) {
	small := manager()
	small.Resources.Limits[corev1.ResourceMemory] = resource.MustParse("8Mi")

	for name, tc := range map[string]struct {
		pod    *corev1.Pod
		events []corev1.Event
		final  bool
		says   []string
	}{
		"killed for its memory": {
			pod: pod(small, corev1.ContainerStatus{
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}},
				RestartCount:         2,
			}),
			final: true,
			says:  []string{"manager", "OOMKilled", "memory limit 8Mi"},
		},
		"refused by the kubelet before it starts": {
			pod: pod(manager(), corev1.ContainerStatus{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason:  "CreateContainerConfigError",
				Message: "container has runAsNonRoot and image has non-numeric user (nonroot), cannot verify user is non-root",
			}}}),
			final: true,
			says:  []string{"manager", "CreateContainerConfigError", "non-numeric user (nonroot)"},
		},
		"never ready: its readiness probe asks the wrong port": {
			pod: pod(manager(), corev1.ContainerStatus{State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}),
			events: []corev1.Event{
				event(corev1.EventTypeWarning, "MissingClusterDNS", "kubelet does not have ClusterDNS IP configured"),
				event(corev1.EventTypeWarning, "Unhealthy", `Readiness probe failed: Get "http://10.244.0.6:9999/readyz": dial tcp 10.244.0.6:9999: connect: connection refused`),
			},
			says: []string{"Readiness probe failed", ":9999/readyz", "connection refused"},
		},
		"its liveness probe, which restarts it": {
			pod: pod(manager(), corev1.ContainerStatus{State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}, RestartCount: 1}),
			events: []corev1.Event{
				event(corev1.EventTypeWarning, "Unhealthy", `Liveness probe failed: Get "http://10.244.0.7:8081/healthz": context deadline exceeded`),
				event(corev1.EventTypeNormal, "Killing", "Container manager failed liveness probe, will be restarted"),
			},
			says: []string{"Liveness probe failed", ":8081/healthz", "restarted 1 time", "failed liveness probe, will be restarted"},
		},
		"starting, nothing wrong yet": {
			pod:    pod(manager(), corev1.ContainerStatus{State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}),
			events: []corev1.Event{event(corev1.EventTypeWarning, "MissingClusterDNS", "kubelet does not have ClusterDNS IP configured")},
		},
	} {
		t.Run(name, func(t *testing.T) {
			trouble, final := podTrouble(tc.pod, tc.events)
			if final != tc.final {
				t.Errorf("final = %v, want %v (%q)", final, tc.final, trouble)
			}
			if len(tc.says) == 0 && trouble != "" {
				t.Errorf("trouble = %q, want none", trouble)
			}
			for _, s := range tc.says {
				if !strings.Contains(trouble, s) {
					t.Errorf("trouble = %q, want it to say %q", trouble, s)
				}
			}
		})
	}
}

// TestARolloutWhosePodsAreRefusedFailsAtOnce: a Deployment whose Pods the API server refuses
// (Pod Security, a quota) fails the wait at once, in the API server's words.
func TestARolloutWhosePodsAreRefusedFailsAtOnce(t *testing.T) {
	refused := `pods "operator-abc" is forbidden: violates PodSecurity "restricted:latest"`
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: "demo", Generation: 1},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "operator"}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: refused},
		}},
	}
	c := fake.NewClientBuilder().WithObjects(d).WithStatusSubresource(d).Build()
	err := WaitRollout(context.Background(), c, "demo", "operator", time.Minute)
	if err == nil || !strings.Contains(err.Error(), refused) || strings.Contains(err.Error(), "not within") {
		t.Errorf("WaitRollout = %v, want it to fail at once, saying %q", err, refused)
	}
}
