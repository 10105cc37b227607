package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/poll"
)

// WaitRollout waits, up to timeout, until the Deployment namespace/name has rolled out: every
// replica updated, available and Ready, no old one left. It fails at once, naming the cause, when
// a Pod of it cannot become Ready (OOMKilled, a container the kubelet refuses to create or keeps
// restarting, an image it cannot find, a Pod the API server refuses), and otherwise on timeout,
// with what the Pods' containers and events say (the kubelet's event of a probe that fails names
// the probe, its port and path). `kubectl rollout status` says only that it timed out.
func WaitRollout(ctx context.Context, c client.Client, namespace, name string, timeout time.Duration) error {
	key := client.ObjectKey{Namespace: namespace, Name: name}
	// What the last look at the Deployment and its Pods saw: at the deadline, a request cut short
	// would only say that time ran out.
	var seen error
	err := poll.Until(ctx, time.Second, timeout, func(ctx context.Context) error {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, key, d); err != nil {
			return errors.Join(seen, err)
		}
		notYet := RolledOut(d)
		if notYet == nil {
			return nil
		}
		trouble, final, err := deploymentTrouble(ctx, c, d)
		if err != nil {
			return errors.Join(seen, err)
		}
		if seen = notYet; trouble != "" {
			seen = fmt.Errorf("%w: %s", notYet, trouble)
		}
		if final {
			return poll.Stop(seen)
		}
		return seen
	})
	if err != nil {
		return fmt.Errorf("the rollout of Deployment %s: %w", key, err)
	}
	return nil
}

// RolledOut is nil once d's rollout is complete, as `kubectl rollout status` decides it, and
// otherwise says how far it is.
func RolledOut(d *appsv1.Deployment) error {
	want := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	switch {
	case s.ObservedGeneration < d.Generation:
		return errors.New("the deployment controller has not seen its latest spec yet")
	case s.UpdatedReplicas < want:
		return fmt.Errorf("%d of %d replicas updated", s.UpdatedReplicas, want)
	case s.Replicas > s.UpdatedReplicas:
		return fmt.Errorf("%d old replicas still running", s.Replicas-s.UpdatedReplicas)
	case s.AvailableReplicas < s.UpdatedReplicas || s.ReadyReplicas < want:
		return fmt.Errorf("%d of %d updated replicas available", s.AvailableReplicas, s.UpdatedReplicas)
	}
	return nil
}

// deploymentTrouble is why d's Pods are not Ready, from its ReplicaFailure condition (a Pod the
// API server refused, which the deployment controller copies from the ReplicaSet) and each Pod's
// containers and events; final when waiting will not help.
func deploymentTrouble(ctx context.Context, c client.Client, d *appsv1.Deployment) (string, bool, error) {
	for _, cond := range d.Status.Conditions {
		if cond.Type == appsv1.DeploymentReplicaFailure && cond.Status == corev1.ConditionTrue {
			return "its Pods cannot be created: " + cond.Message, true, nil
		}
	}
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return "", false, err
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(d.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return "", false, err
	}
	var troubles []string
	final := false
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		events := &corev1.EventList{}
		if err := c.List(ctx, events, client.InNamespace(p.Namespace), client.MatchingFields{"involvedObject.name": p.Name}); err != nil {
			return "", false, err
		}
		if trouble, fin := podTrouble(p, events.Items); trouble != "" {
			troubles = append(troubles, "Pod "+p.Name+": "+trouble)
			final = final || fin
		}
	}
	return strings.Join(troubles, "; "), final, nil
}

// waitingForever are the reasons a container waits that waiting will not end.
var waitingForever = []string{
	"CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError", "RunContainerError",
	"InvalidImageName", "ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull",
}

// podTrouble is why pod is not Ready, from its containers' states and its events (a warning the
// node gives every Pod, MissingClusterDNS, aside); final when waiting will not help. It is ""
// when nothing is wrong yet.
func podTrouble(pod *corev1.Pod, events []corev1.Event) (string, bool) {
	troubles, final := containerTroubles(pod)
	// The scheduler's FailedScheduling among them.
	for _, e := range events {
		if e.Reason == "Killing" && strings.Contains(e.Message, "failed") ||
			e.Type == corev1.EventTypeWarning && e.Reason != "MissingClusterDNS" && e.Reason != "BackOff" {
			troubles = append(troubles, e.Reason+": "+e.Message)
		}
	}
	return strings.Join(slices.Compact(troubles), "; "), final
}

// containerTroubles are what pod's containers' states say is wrong; final when waiting will not help.
func containerTroubles(pod *corev1.Pod) ([]string, bool) {
	var troubles []string
	final := false
	for _, s := range pod.Status.ContainerStatuses {
		for _, state := range []corev1.ContainerState{s.State, s.LastTerminationState} {
			if t := state.Terminated; t != nil && t.Reason == "OOMKilled" {
				limit := resource.Quantity{}
				if i := slices.IndexFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == s.Name }); i >= 0 {
					limit = *pod.Spec.Containers[i].Resources.Limits.Memory()
				}
				troubles = append(troubles, fmt.Sprintf("container %s was OOMKilled (exit code %d) under its memory limit %s: raise resources.limits.memory",
					s.Name, t.ExitCode, &limit))
				final = true
			}
		}
		if w := s.State.Waiting; w != nil && slices.Contains(waitingForever, w.Reason) && !final {
			trouble := fmt.Sprintf("container %s: %s", s.Name, w.Reason)
			if w.Message != "" {
				trouble += ": " + w.Message
			}
			if t := s.LastTerminationState.Terminated; t != nil {
				trouble += fmt.Sprintf(" (last exit: %s, code %d)", t.Reason, t.ExitCode)
			}
			troubles = append(troubles, trouble)
			final = true
		}
		if s.RestartCount > 0 && !final {
			troubles = append(troubles, fmt.Sprintf("container %s restarted %d time(s)", s.Name, s.RestartCount))
		}
	}
	return troubles, final
}
