package controllers

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// newSample is the v1beta1 Sample team-a/name whose spec.data holds message under "message", as
// a v1alpha1 Sample of that message reads through v1beta1.
func newSample(name, message string) *demov1beta1.Sample {
	return newSampleData(name, map[string]string{demov1alpha1.MessageKey: message})
}

// newSampleData is the v1beta1 Sample team-a/name with spec.data data.
func newSampleData(name string, data map[string]string) *demov1beta1.Sample {
	return &demov1beta1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", UID: types.UID("uid-" + name), Generation: 1},
		Spec:       demov1beta1.SampleSpec{Data: data},
	}
}

func TestDesiredConfigMap(t *testing.T) {
	tests := []struct {
		name    string
		sample  *demov1beta1.Sample
		want    map[string]string
		wantCMN string
	}{
		{name: "a message", sample: newSample("greeting", "hello world"), want: map[string]string{"message": "hello world"}, wantCMN: "greeting-config"},
		{name: "an empty message", sample: newSample("quiet", ""), want: map[string]string{"message": ""}, wantCMN: "quiet-config"},
		{name: "a multi-line message", sample: newSample("poem", "line one\nline two\n"), want: map[string]string{"message": "line one\nline two\n"}, wantCMN: "poem-config"},
		{name: "several keys", sample: newSampleData("palette", map[string]string{"message": "hi", "colour": "blue"}), want: map[string]string{"message": "hi", "colour": "blue"}, wantCMN: "palette-config"},
		{name: "no key at all: no data, so that every key applied before is removed", sample: newSampleData("empty", nil), want: nil, wantCMN: "empty-config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := desiredConfigMap(tt.sample)
			if ptr.Deref(got.Name, "") != tt.wantCMN || ptr.Deref(got.Namespace, "") != tt.sample.Namespace {
				t.Errorf("ConfigMap %s/%s, want %s/%s", ptr.Deref(got.Namespace, ""), ptr.Deref(got.Name, ""), tt.sample.Namespace, tt.wantCMN)
			}
			if ptr.Deref(got.Kind, "") != "ConfigMap" || ptr.Deref(got.APIVersion, "") != "v1" {
				t.Errorf("apply of kind %v, apiVersion %v: the API server needs both", got.Kind, got.APIVersion)
			}
			if diff := cmp.Diff(tt.want, got.Data); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]string{ManagedByLabel: ManagedByValue}, got.Labels); diff != "" {
				t.Errorf("labels, which the cache selects on (-want +got):\n%s", diff)
			}
			wantRef := metav1ac.OwnerReference().
				WithAPIVersion("demo.example.com/v1beta1").WithKind("Sample").WithName(tt.sample.Name).WithUID(tt.sample.UID).
				WithController(true).WithBlockOwnerDeletion(true)
			if diff := cmp.Diff([]metav1ac.OwnerReferenceApplyConfiguration{*wantRef}, got.OwnerReferences); diff != "" {
				t.Errorf("owner references (-want +got):\n%s", diff)
			}
			if got.UID != nil || got.Annotations != nil || got.BinaryData != nil {
				t.Errorf("the intent holds more than the operator manages: uid %v, annotations %v, binaryData %v", got.UID, got.Annotations, got.BinaryData)
			}
		})
	}
}

// TestDesiredConfigMapKeepsTheLongestValueWhole: the bound counts characters, and a character
// takes up to four bytes; the ConfigMap keeps every byte of the longest value the API server
// admits (the invalid-input scenario writes it through the API server and reads it back).
//
// Characterization: written after the builder it pins, when a break that cut the message at
// 1,024 bytes failed no test of this tier (issue #40).
func TestDesiredConfigMapKeepsTheLongestValueWhole(t *testing.T) {
	const everyWidth = "aé中😀" // one character of each width UTF-8 has: one byte to four
	value := strings.Repeat(everyWidth, demov1beta1.MaxDataValueLength/utf8.RuneCountInString(everyWidth))
	got := desiredConfigMap(newSample("longest", value)).Data[demov1alpha1.MessageKey]
	if got != value {
		t.Errorf("data.message holds %d characters (%d bytes), want all %d (%d bytes)",
			utf8.RuneCountInString(got), len(got), utf8.RuneCountInString(value), len(value))
	}
}
