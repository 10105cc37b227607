package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validation"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/randfill"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// The parts of a Sample that both versions share, as a conversion must carry them whole.
var (
	conversionMeta = metav1.ObjectMeta{
		Name: "greeting", Namespace: "team-a", UID: types.UID("uid-greeting"), Generation: 4, ResourceVersion: "42",
		Labels: map[string]string{"app": "demo"}, Annotations: map[string]string{"team": "a"},
		Finalizers: []string{"example.com/keep"},
	}
	conversionStatus = demov1alpha1.SampleStatus{
		ObservedGeneration: 3, ConfigMapName: "greeting-config",
		Conditions: []metav1.Condition{{Type: demov1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: demov1alpha1.ReasonSynced, Message: "in sync", ObservedGeneration: 3}},
	}
	conversionHubStatus = demov1beta1.SampleStatus{
		ObservedGeneration: 3, ConfigMapName: "greeting-config",
		Conditions: []metav1.Condition{{Type: demov1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: demov1alpha1.ReasonSynced, Message: "in sync", ObservedGeneration: 3}},
	}
)

// withAnnotations is conversionMeta with its annotations replaced by annotations (nil: none).
func withAnnotations(annotations map[string]string) metav1.ObjectMeta {
	meta := *conversionMeta.DeepCopy()
	meta.Annotations = annotations
	return meta
}

// TestConvertSampleToHub: a v1alpha1 Sample converts to the v1beta1 Sample whose data["message"] is
// its message, with its metadata and status as they are; what ConversionDataAnnotation kept of an
// earlier v1beta1 form comes back, and the annotation goes.
func TestConvertSampleToHub(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string // the v1alpha1 Sample's; conversionMeta's otherwise
		message     string
		want        map[string]string // spec.data
		wantAnns    map[string]string // the v1beta1 Sample's; conversionMeta's otherwise
	}{
		{name: "a message", message: "hello", want: map[string]string{"message": "hello"}},
		{name: "an empty message", message: "", want: map[string]string{"message": ""}},
		{
			name:        "the keys the annotation kept, beside the message",
			annotations: map[string]string{"team": "a", demov1alpha1.ConversionDataAnnotation: `{"data":{"a":"1","b":"2"}}`},
			message:     "hello", want: map[string]string{"message": "hello", "a": "1", "b": "2"},
		},
		{
			name:        "data that had no message, and still none",
			annotations: map[string]string{"team": "a", demov1alpha1.ConversionDataAnnotation: `{"data":{"a":"1"},"noMessage":true}`},
			message:     "", want: map[string]string{"a": "1"},
		},
		{
			name:        "data that had nothing at all",
			annotations: map[string]string{"team": "a", demov1alpha1.ConversionDataAnnotation: `{"noMessage":true}`},
			message:     "", want: map[string]string{},
		},
		{
			name:        "a message written since into data that had none",
			annotations: map[string]string{"team": "a", demov1alpha1.ConversionDataAnnotation: `{"data":{"a":"1"},"noMessage":true}`},
			message:     "now", want: map[string]string{"message": "now", "a": "1"},
		},
		{
			name:        "the annotation alone among the annotations",
			annotations: map[string]string{demov1alpha1.ConversionDataAnnotation: `{"data":{"a":"1"}}`},
			message:     "hello", want: map[string]string{"message": "hello", "a": "1"}, wantAnns: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &demov1alpha1.Sample{ObjectMeta: conversionMeta, Spec: demov1alpha1.SampleSpec{Message: tt.message}, Status: conversionStatus}
			if tt.annotations != nil {
				src.ObjectMeta = withAnnotations(tt.annotations)
			}
			before := src.DeepCopy()
			want := &demov1beta1.Sample{ObjectMeta: conversionMeta, Spec: demov1beta1.SampleSpec{Data: tt.want}, Status: conversionHubStatus}
			if tt.wantAnns != nil {
				want.ObjectMeta = withAnnotations(tt.wantAnns)
			}
			got := &demov1beta1.Sample{}
			if err := ConvertSampleToHub(context.Background(), src, got); err != nil {
				t.Fatalf("convert: %v", err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("v1beta1 Sample (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, src); diff != "" {
				t.Errorf("the v1alpha1 Sample changed in the conversion (-before +after):\n%s", diff)
			}
		})
	}
}

// TestConvertSampleToHubRefusesAnAnnotationItCannotRead: a ConversionDataAnnotation that is not
// what the conversion to v1alpha1 wrote is an error naming the Sample and the annotation, not
// keys silently lost.
func TestConvertSampleToHubRefusesAnAnnotationItCannotRead(t *testing.T) {
	src := &demov1alpha1.Sample{ObjectMeta: withAnnotations(map[string]string{demov1alpha1.ConversionDataAnnotation: "a: 1"}), Spec: demov1alpha1.SampleSpec{Message: "hello"}}
	err := ConvertSampleToHub(context.Background(), src, &demov1beta1.Sample{})
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		t.Fatalf("error %v, want the JSON syntax error, wrapped", err)
	}
	for _, want := range []string{"team-a/greeting", demov1alpha1.ConversionDataAnnotation} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestConvertSampleFromHub: a v1beta1 Sample converts to the v1alpha1 Sample whose message is
// data["message"], with its metadata and status as they are; what v1alpha1 cannot hold (the other
// keys, a data without "message") goes into ConversionDataAnnotation, which API server accepts as
// an annotation, and only then.
func TestConvertSampleFromHub(t *testing.T) {
	tests := []struct {
		name          string
		annotations   map[string]string // the v1beta1 Sample's; conversionMeta's otherwise
		noAnnotations bool              // the v1beta1 Sample's annotations are nil
		data          map[string]string
		message       string
		kept          string // ConversionDataAnnotation; "" for none
	}{
		{name: "a message alone", data: map[string]string{"message": "hello"}, message: "hello"},
		{name: "an empty message alone", data: map[string]string{"message": ""}, message: ""},
		{name: "a message and no annotations", annotations: map[string]string{}, data: map[string]string{"message": "hello"}, message: "hello"},
		{name: "other keys and annotations nil", noAnnotations: true, data: map[string]string{"message": "hello", "a": "1"}, message: "hello", kept: `{"data":{"a":"1"}}`},
		{name: "other keys beside the message", data: map[string]string{"message": "hello", "b": "2", "a": "1"}, message: "hello", kept: `{"data":{"a":"1","b":"2"}}`},
		{name: "keys without a message", data: map[string]string{"a": "1"}, kept: `{"data":{"a":"1"},"noMessage":true}`},
		{name: "no data", kept: `{"noMessage":true}`},
		{name: "other keys and no annotations", annotations: map[string]string{}, data: map[string]string{"message": "hello", "a": "1"}, message: "hello", kept: `{"data":{"a":"1"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &demov1beta1.Sample{ObjectMeta: conversionMeta, Spec: demov1beta1.SampleSpec{Data: tt.data}, Status: conversionHubStatus}
			if tt.annotations != nil || tt.noAnnotations {
				src.ObjectMeta = withAnnotations(tt.annotations)
			}
			before := src.DeepCopy()
			want := &demov1alpha1.Sample{ObjectMeta: *src.ObjectMeta.DeepCopy(), Spec: demov1alpha1.SampleSpec{Message: tt.message}, Status: conversionStatus}
			if tt.kept != "" {
				if want.Annotations == nil {
					want.Annotations = map[string]string{}
				}
				want.Annotations[demov1alpha1.ConversionDataAnnotation] = tt.kept
			}
			got := &demov1alpha1.Sample{}
			if err := ConvertSampleFromHub(context.Background(), src, got); err != nil {
				t.Fatalf("convert: %v", err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("v1alpha1 Sample (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, src); diff != "" {
				t.Errorf("the v1beta1 Sample changed in the conversion (-before +after):\n%s", diff)
			}
			if errs := validation.ValidateAnnotations(got.Annotations, field.NewPath("metadata", "annotations")); len(errs) > 0 {
				t.Errorf("the API server would refuse the annotations: %v", errs.ToAggregate())
			}
		})
	}
}

// TestSampleReadModifyWriteThroughV1alpha1KeepsV1beta1Keys: a client of v1alpha1 reads a Sample
// stored as v1beta1, changes its message and a label, and writes it back as JSON: the v1beta1 keys
// it never saw are still there, beside its new message, and the annotation that carried them is
// gone.
func TestSampleReadModifyWriteThroughV1alpha1KeepsV1beta1Keys(t *testing.T) {
	stored := &demov1beta1.Sample{ObjectMeta: conversionMeta, Spec: demov1beta1.SampleSpec{Data: map[string]string{"message": "old", "a": "1", "b": "2"}}, Status: conversionHubStatus}
	read := &demov1alpha1.Sample{}
	if err := ConvertSampleFromHub(context.Background(), stored, read); err != nil {
		t.Fatalf("read as v1alpha1: %v", err)
	}
	// The client's round trip: the JSON it reads, edits and sends back.
	raw, err := json.Marshal(read)
	if err != nil {
		t.Fatal(err)
	}
	edited := &demov1alpha1.Sample{}
	if err := json.Unmarshal(raw, edited); err != nil {
		t.Fatal(err)
	}
	edited.Spec.Message = "new"
	metav1.SetMetaDataLabel(&edited.ObjectMeta, "tier", "web")
	written := &demov1beta1.Sample{}
	if err := ConvertSampleToHub(context.Background(), edited, written); err != nil {
		t.Fatalf("write as v1alpha1: %v", err)
	}
	want := stored.DeepCopy()
	want.Spec.Data["message"] = "new"
	want.Labels["tier"] = "web"
	if diff := cmp.Diff(want, written); diff != "" {
		t.Errorf("v1beta1 Sample after the write (-want +got):\n%s", diff)
	}
}

// TestSampleConverter: the converter that the conversion webhook registers (WithConverter)
// converts through the scheme both ways, v1beta1 as the hub and v1alpha1 as its spoke.
func TestSampleConverter(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := errors.Join(demov1alpha1.AddToScheme(scheme), demov1beta1.AddToScheme(scheme)); err != nil {
		t.Fatal(err)
	}
	converter, err := SampleConverter(scheme)
	if err != nil {
		t.Fatalf("build the converter: %v", err)
	}
	// The API versions as the API server names them in a ConversionReview.
	alpha, beta := metav1.TypeMeta{APIVersion: "demo.example.com/v1alpha1", Kind: "Sample"}, metav1.TypeMeta{APIVersion: "demo.example.com/v1beta1", Kind: "Sample"}
	spoke := &demov1alpha1.Sample{TypeMeta: alpha, ObjectMeta: conversionMeta, Spec: demov1alpha1.SampleSpec{Message: "hello"}}
	hub := &demov1beta1.Sample{TypeMeta: beta}
	if err := converter.ConvertObject(context.Background(), spoke, hub); err != nil {
		t.Fatalf("v1alpha1 to v1beta1: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"message": "hello"}, hub.Spec.Data); diff != "" {
		t.Errorf("v1beta1 data (-want +got):\n%s", diff)
	}
	hub.Spec.Data["a"] = "1"
	back := &demov1alpha1.Sample{TypeMeta: alpha}
	if err := converter.ConvertObject(context.Background(), hub, back); err != nil {
		t.Fatalf("v1beta1 to v1alpha1: %v", err)
	}
	if back.Spec.Message != "hello" || back.Annotations[demov1alpha1.ConversionDataAnnotation] != `{"data":{"a":"1"}}` {
		t.Errorf("v1alpha1 Sample: message %q, annotations %v; want hello, and a kept", back.Spec.Message, back.Annotations)
	}
}

// fuzzRounds is how many random Samples each fuzz test converts: ten thousand, in about 1.5 s
// (fuzzRoundsRace under the race detector).
const fuzzRounds = 10000

// TestFuzzSampleRoundTripFromV1alpha1: every v1alpha1 Sample apimachinery's fuzzer makes (random
// metadata, message and status) comes back from v1beta1 as it was, and the conversions leave
// their source as it was.
func TestFuzzSampleRoundTripFromV1alpha1(t *testing.T) {
	fuzzRoundTrip(t, "v1alpha1 → v1beta1 → v1alpha1", ConvertSampleToHub, ConvertSampleFromHub)
}

// TestFuzzSampleRoundTripFromV1beta1: every v1beta1 Sample apimachinery's fuzzer makes (random
// metadata, data with and without "message", status) comes back from v1alpha1 as it was, and
// the conversions leave their source as it was.
func TestFuzzSampleRoundTripFromV1beta1(t *testing.T) {
	fuzzRoundTrip(t, "v1beta1 → v1alpha1 → v1beta1", ConvertSampleFromHub, ConvertSampleToHub)
}

// fuzzRoundTrip converts rounds() random Samples of one version to the other (there) and back
// (back): each must come back as it was, and neither conversion may change its source.
func fuzzRoundTrip[A, B any, PA interface {
	*A
	runtime.Object
}, PB interface {
	*B
	runtime.Object
}](t *testing.T, path string, there func(context.Context, PA, PB) error, back func(context.Context, PB, PA) error) {
	t.Helper()
	filler := sampleFuzzer(t)
	for i := range rounds() {
		original := PA(new(A))
		filler.Fill(original)
		src := original.DeepCopyObject()
		other := PB(new(B))
		if err := there(context.Background(), original, other); err != nil {
			t.Fatalf("round %d: %s, the first conversion: %v", i, path, err)
		}
		otherBefore := other.DeepCopyObject()
		returned := PA(new(A))
		if err := back(context.Background(), other, returned); err != nil {
			t.Fatalf("round %d: %s, the way back: %v", i, path, err)
		}
		if !apiequality.Semantic.DeepEqual(src, returned) {
			t.Fatalf("round %d: %s (-was +now):\n%s", i, path, cmp.Diff(src, returned))
		}
		if !apiequality.Semantic.DeepEqual(src, original) || !apiequality.Semantic.DeepEqual(otherBefore, other) {
			t.Fatalf("round %d: %s: a conversion changed its source", i, path)
		}
	}
}

// sampleFuzzer fills Samples of either version with random values, as apimachinery's round-trip
// tests do: metav1's fuzzer functions keep metadata and conditions in shapes the API server could
// hold; a random half of v1beta1's data holds "message". Its seed is logged, for a failure to be
// rerun.
func sampleFuzzer(t *testing.T) *randfill.Filler {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	return fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, sampleFuzzerFuncs), rand.NewSource(seed), serializer.NewCodecFactory(runtime.NewScheme())).
		NilChance(0.2).NumElements(0, 4)
}

func sampleFuzzerFuncs(_ serializer.CodecFactory) []any {
	return []any{
		func(s *demov1beta1.SampleSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			if c.Bool() {
				if s.Data == nil {
					s.Data = map[string]string{}
				}
				s.Data[demov1alpha1.MessageKey] = c.String(0)
			}
		},
	}
}

// fuzzRoundsRace is fuzzRounds under the race detector (make test's -race), which finds nothing
// here (a conversion runs in one goroutine) and makes each round about three times slower: two
// thousand, in under a second.
const fuzzRoundsRace = 2000

// rounds is how many random Samples a fuzz test converts in this run.
func rounds() int {
	if raceDetector {
		return fuzzRoundsRace
	}
	return fuzzRounds
}
