package e2e

import corev1 "k8s.io/api/core/v1"

// podTrouble says why pod is not Ready (not yet).
func podTrouble(pod *corev1.Pod, events []corev1.Event) (string, bool) { return "", false }
