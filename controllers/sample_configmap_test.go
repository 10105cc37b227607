package controllers

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

func newSample(name, message string) *demov1alpha1.Sample {
	return &demov1alpha1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", UID: types.UID("uid-" + name), Generation: 1},
		Spec:       demov1alpha1.SampleSpec{Message: message},
	}
}

func TestDesiredConfigMap(t *testing.T) {
	tests := []struct {
		name    string
		sample  *demov1alpha1.Sample
		want    map[string]string
		wantCMN string
	}{
		{name: "a message", sample: newSample("greeting", "hello world"), want: map[string]string{"message": "hello world"}, wantCMN: "greeting-config"},
		{name: "an empty message", sample: newSample("quiet", ""), want: map[string]string{"message": ""}, wantCMN: "quiet-config"},
		{name: "a multi-line message", sample: newSample("poem", "line one\nline two\n"), want: map[string]string{"message": "line one\nline two\n"}, wantCMN: "poem-config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := desiredConfigMap(tt.sample)
			if got.Name != tt.wantCMN || got.Namespace != tt.sample.Namespace {
				t.Errorf("ConfigMap %s/%s, want %s/%s", got.Namespace, got.Name, tt.sample.Namespace, tt.wantCMN)
			}
			if diff := cmp.Diff(tt.want, got.Data); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if got.Labels[ManagedByLabel] != ManagedByValue {
				t.Errorf("labels %v lack %s=%s, which the cache selects on", got.Labels, ManagedByLabel, ManagedByValue)
			}
			wantRef := metav1.OwnerReference{
				APIVersion: "demo.example.com/v1alpha1", Kind: "Sample", Name: tt.sample.Name, UID: tt.sample.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}
			if diff := cmp.Diff([]metav1.OwnerReference{wantRef}, got.OwnerReferences); diff != "" {
				t.Errorf("owner references (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDesiredConfigMapKeepsTheLongestMessageWhole: the bound counts characters, and a character
// takes up to four bytes; the ConfigMap keeps every byte of the longest message the API server
// admits (the invalid-input scenario writes it through the API server and reads it back).
//
// Characterization: written after the builder it pins, when a break that cut the message at
// 1,024 bytes failed no test of this tier (issue #40).
func TestDesiredConfigMapKeepsTheLongestMessageWhole(t *testing.T) {
	const everyWidth = "aé中😀" // one character of each width UTF-8 has: one byte to four
	message := strings.Repeat(everyWidth, demov1alpha1.MaxMessageLength/utf8.RuneCountInString(everyWidth))
	got := desiredConfigMap(newSample("longest", message)).Data[demov1alpha1.MessageKey]
	if got != message {
		t.Errorf("data.message holds %d characters (%d bytes), want all %d (%d bytes)",
			utf8.RuneCountInString(got), len(got), utf8.RuneCountInString(message), len(message))
	}
}

func TestWithManagedFields(t *testing.T) {
	sample := newSample("greeting", "hello world")
	desired := desiredConfigMap(sample)
	cm := func(data, labels, annotations map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: desired.Name, Namespace: desired.Namespace, Labels: labels, Annotations: annotations, OwnerReferences: desired.OwnerReferences},
			Data:       data,
		}
	}
	managed := map[string]string{ManagedByLabel: ManagedByValue}
	tests := []struct {
		name        string
		current     *corev1.ConfigMap
		want        *corev1.ConfigMap
		wantChanged bool
	}{
		{
			name:    "as desired: no change",
			current: cm(map[string]string{"message": "hello world"}, managed, nil),
			want:    cm(map[string]string{"message": "hello world"}, managed, nil),
		},
		{
			name:        "message drifted: restored",
			current:     cm(map[string]string{"message": "drifted"}, managed, nil),
			want:        cm(map[string]string{"message": "hello world"}, managed, nil),
			wantChanged: true,
		},
		{
			name:        "message key removed: put back",
			current:     cm(nil, managed, nil),
			want:        cm(map[string]string{"message": "hello world"}, managed, nil),
			wantChanged: true,
		},
		{
			name:        "managed-by label stripped: put back, other labels kept",
			current:     cm(map[string]string{"message": "hello world"}, map[string]string{"team": "a"}, nil),
			want:        cm(map[string]string{"message": "hello world"}, map[string]string{"team": "a", ManagedByLabel: ManagedByValue}, nil),
			wantChanged: true,
		},
		{
			name:    "others' keys, labels and annotations: kept, no change",
			current: cm(map[string]string{"message": "hello world", "extra": "x"}, map[string]string{ManagedByLabel: ManagedByValue, "team": "a"}, map[string]string{"note": "n"}),
			want:    cm(map[string]string{"message": "hello world", "extra": "x"}, map[string]string{ManagedByLabel: ManagedByValue, "team": "a"}, map[string]string{"note": "n"}),
		},
		{
			name:        "others' keys kept while the message is restored",
			current:     cm(map[string]string{"message": "drifted", "extra": "x"}, managed, map[string]string{"note": "n"}),
			want:        cm(map[string]string{"message": "hello world", "extra": "x"}, managed, map[string]string{"note": "n"}),
			wantChanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.current.DeepCopy()
			got, changed := withManagedFields(tt.current, desired)
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("merged ConfigMap (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.current); diff != "" {
				t.Errorf("current was modified (-before +after):\n%s", diff)
			}
		})
	}
}
