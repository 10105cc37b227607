package samples

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

func TestHaveReady(t *testing.T) {
	sample := func(generation, observed int64, status metav1.ConditionStatus, reason string) demov1alpha1.Sample {
		s := demov1alpha1.Sample{ObjectMeta: metav1.ObjectMeta{Name: "greeting", Generation: generation}}
		s.Status.ObservedGeneration = observed
		meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: demov1alpha1.ConditionReady, Status: status, Reason: reason, ObservedGeneration: observed})
		return s
	}
	ready := HaveReady(metav1.ConditionTrue, demov1alpha1.ReasonSynced)
	for name, tt := range map[string]struct {
		actual any
		want   bool
	}{
		"a Sample that is Ready":             {sample(2, 2, metav1.ConditionTrue, demov1alpha1.ReasonSynced), true},
		"a *Sample that is Ready":            {addressOf(sample(2, 2, metav1.ConditionTrue, demov1alpha1.ReasonSynced)), true},
		"Ready for an older generation":      {sample(3, 2, metav1.ConditionTrue, demov1alpha1.ReasonSynced), false},
		"not Ready":                          {sample(2, 2, metav1.ConditionFalse, demov1alpha1.ReasonSynced), false},
		"Ready for another reason":           {sample(2, 2, metav1.ConditionTrue, "Other"), false},
		"no condition at all":                {demov1alpha1.Sample{}, false},
		"a string is not a Sample: an error": {"a string", false},
	} {
		ok, err := ready.Match(tt.actual)
		if ok != tt.want || (err != nil) != strings.Contains(name, "not a Sample") {
			t.Errorf("%s: Match = %v, %v; want %v", name, ok, err, tt.want)
		}
	}
	RegisterTestingT(t)
	message := ready.FailureMessage(addressOf(sample(3, 2, metav1.ConditionTrue, demov1alpha1.ReasonSynced)))
	Expect(message).To(ContainSubstring("Expected Sample greeting, at generation 3, to report Ready=True, reason Synced"))
}

func addressOf(s demov1alpha1.Sample) *demov1alpha1.Sample { return &s }
