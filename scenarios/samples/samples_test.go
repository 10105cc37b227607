package samples

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

func TestSynced(t *testing.T) {
	synced := func() (*demov1alpha1.Sample, map[string]string) {
		s := New("team-a", "greeting", "hello world")
		s.Generation = 2
		s.Status.ObservedGeneration = 2
		meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: demov1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: demov1alpha1.ReasonSynced})
		return s, map[string]string{demov1alpha1.MessageKey: "hello world"}
	}
	tests := []struct {
		name   string
		change func(*demov1alpha1.Sample, map[string]string)
		want   string // in the error; "" for synced
	}{
		{"synced", func(*demov1alpha1.Sample, map[string]string) {}, ""},
		{"the ConfigMap holds another message", func(_ *demov1alpha1.Sample, data map[string]string) { data[demov1alpha1.MessageKey] = "old" }, `holds message "old"`},
		{"the ConfigMap holds a long message cut short: lengths and where they part, not both whole", func(s *demov1alpha1.Sample, data map[string]string) {
			s.Spec.Message = strings.Repeat("é", 2000)
			data[demov1alpha1.MessageKey] = s.Spec.Message[:1024]
		}, `holds message of 512 characters (1024 bytes), from character 512 on "", Sample greeting wants of 2000 characters (4000 bytes), from character 512 on "éééééééé"`},
		{"status describes an older generation", func(s *demov1alpha1.Sample, _ map[string]string) { s.Generation = 3 }, "describes generation 2"},
		{"not Ready", func(s *demov1alpha1.Sample, _ map[string]string) {
			s.Status.Conditions[0].Status = metav1.ConditionFalse
		}, "is not True"},
		{"Ready for another reason", func(s *demov1alpha1.Sample, _ map[string]string) { s.Status.Conditions[0].Reason = "Other" }, "is not True, reason Synced"},
		{"no condition at all", func(s *demov1alpha1.Sample, _ map[string]string) { s.Status.Conditions = nil }, "is not True"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sample, data := synced()
			tt.change(sample, data)
			cm := ConfigMapOf(sample)
			cm.Data = data
			err := Synced(sample, cm)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Synced: %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Synced: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestSyncedOfEitherVersion: a v1beta1 Sample is synced when its ConfigMap holds each key of
// spec.data, whatever else it holds; anything but a Sample is an error, never synced.
func TestSyncedOfEitherVersion(t *testing.T) {
	sample := NewData("team-a", "palette", map[string]string{"message": "hello", "colour": "blue"})
	sample.Generation, sample.Status.ObservedGeneration = 1, 1
	meta.SetStatusCondition(&sample.Status.Conditions, metav1.Condition{Type: demov1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: demov1alpha1.ReasonSynced})
	cm := ConfigMapOf(sample)
	for _, tc := range []struct {
		data map[string]string
		want string // in the error; "" for synced
	}{
		{map[string]string{"message": "hello", "colour": "blue"}, ""},
		{map[string]string{"message": "hello", "colour": "blue", "extra": "theirs"}, ""},
		{map[string]string{"message": "hello"}, `holds no colour, Sample palette wants "blue"`},
		{map[string]string{"message": "hello", "colour": "red"}, `holds colour "red", Sample palette wants "blue"`},
	} {
		cm.Data = tc.data
		err := Synced(sample, cm)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ConfigMap data %v: Synced = %v, want %q", tc.data, err, tc.want)
		}
	}
	if err := Synced(cm, cm); err == nil || !strings.Contains(err.Error(), "not a Sample") {
		t.Errorf("Synced of a ConfigMap = %v, want an error saying it is not a Sample", err)
	}
}
