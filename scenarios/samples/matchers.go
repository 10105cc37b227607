package samples

import (
	"fmt"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// HaveReady matches a Sample of either version (or a *Sample) whose Ready condition has status and reason for its
// current generation: what `kubectl get samples` shows in its READY and REASON columns.
//
//	Eventually(komega.Object(sample)).Should(samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapConflict))
//	Expect(list.Items).To(HaveEach(samples.HaveReady(metav1.ConditionTrue, demov1alpha1.ReasonSynced)))
func HaveReady(status metav1.ConditionStatus, reason string) types.GomegaMatcher {
	want := metav1.Condition{Type: demov1alpha1.ConditionReady, Status: status, Reason: reason}
	return gcustom.MakeMatcher(func(actual any) (bool, error) {
		_, generation, observed, conditions, err := read(actual)
		if err != nil {
			return false, fmt.Errorf("HaveReady: %w", err)
		}
		ready := meta.FindStatusCondition(conditions, demov1alpha1.ConditionReady)
		return ready != nil && ready.Status == status && ready.Reason == reason &&
			ready.ObservedGeneration == generation && observed == generation, nil
	}).WithTemplate("Expected Sample {{.Actual.Name}}, at generation {{.Actual.Generation}}, {{.To}} report "+
		"Ready={{.Data.Status}}, reason {{.Data.Reason}}, for that generation. Its status:\n{{format .Actual.Status 1}}", want)
}
