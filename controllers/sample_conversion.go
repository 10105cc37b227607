package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// The conversions between the Sample's versions: v1beta1 is the hub, v1alpha1 its one spoke.
//
// They are controller-runtime's hub-and-spoke converter (pkg/webhook/conversion, since v0.23):
// plain functions, registered with the conversion webhook (SetupWebhooks: WithConverter with
// SampleConverter), rather than the ConvertTo/ConvertFrom methods of conversion.Convertible on
// the v1alpha1 type. That keeps api/ types and their markers only, importing neither
// controller-runtime nor the operator, and keeps what a conversion does beside the code that
// serves it and the tests that judge it; v1beta1 still says it is the hub (Hub()), for a reader.
//
// A conversion never writes its source, and carries metadata and status whole; only spec changes
// shape. v1alpha1's message is v1beta1's data["message"]; what v1alpha1 cannot hold goes into the
// annotation demov1alpha1.ConversionDataAnnotation on the way to v1alpha1 and comes back from it
// on the way to v1beta1, as Cluster API keeps what an older version cannot hold.

// SampleConverter is the converter of Samples between their versions, for the conversion webhook's
// registration (controller-runtime's WebhookBuilder.WithConverter) on scheme, which holds both.
func SampleConverter(scheme *runtime.Scheme) (conversion.Converter, error) {
	return conversion.NewHubSpokeConverter(&demov1beta1.Sample{},
		conversion.NewSpokeConverter(&demov1alpha1.Sample{}, ConvertSampleFromHub, ConvertSampleToHub))(scheme)
}

// keptData is what ConversionDataAnnotation holds, as JSON: what of v1beta1's spec.data v1alpha1's
// message cannot hold.
type keptData struct {
	// Data are the keys of spec.data other than MessageKey, with their values.
	Data map[string]string `json:"data,omitempty"`
	// NoMessage says that spec.data has no MessageKey: v1alpha1's message, "", stands for none.
	NoMessage bool `json:"noMessage,omitempty"`
}

// ConvertSampleToHub converts the v1alpha1 Sample src into the v1beta1 Sample dst: data["message"]
// is src's message, beside the keys its ConversionDataAnnotation kept, which dst does not carry.
func ConvertSampleToHub(_ context.Context, src *demov1alpha1.Sample, dst *demov1beta1.Sample) error {
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	var kept keptData
	if raw, ok := dst.Annotations[demov1alpha1.ConversionDataAnnotation]; ok {
		if err := json.Unmarshal([]byte(raw), &kept); err != nil {
			return fmt.Errorf("convert Sample %s/%s to %s: its annotation %s: %w",
				src.Namespace, src.Name, demov1beta1.GroupVersion, demov1alpha1.ConversionDataAnnotation, err)
		}
		delete(dst.Annotations, demov1alpha1.ConversionDataAnnotation)
	}
	dst.Spec.Data = map[string]string{}
	maps.Copy(dst.Spec.Data, kept.Data)
	if !kept.NoMessage || src.Spec.Message != "" {
		dst.Spec.Data[demov1alpha1.MessageKey] = src.Spec.Message
	}
	dst.Status = demov1beta1.SampleStatus{
		ObservedGeneration: src.Status.ObservedGeneration,
		ConfigMapName:      src.Status.ConfigMapName,
		Conditions:         src.Status.DeepCopy().Conditions,
	}
	return nil
}

// ConvertSampleFromHub converts the v1beta1 Sample src into the v1alpha1 Sample dst: its message is
// data["message"], and ConversionDataAnnotation keeps the rest of data, if there is any to keep.
func ConvertSampleFromHub(_ context.Context, src *demov1beta1.Sample, dst *demov1alpha1.Sample) error {
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	message, hasMessage := src.Spec.Data[demov1alpha1.MessageKey]
	dst.Spec.Message = message
	kept := keptData{Data: maps.Clone(src.Spec.Data), NoMessage: !hasMessage}
	delete(kept.Data, demov1alpha1.MessageKey)
	if len(kept.Data) > 0 || kept.NoMessage {
		// Marshal cannot fail: strings and a bool (an invalid UTF-8 string, which it would make
		// valid, is no string of an object the API server has decoded from JSON).
		raw, _ := json.Marshal(kept)
		if dst.Annotations == nil {
			dst.Annotations = map[string]string{}
		}
		dst.Annotations[demov1alpha1.ConversionDataAnnotation] = string(raw)
	}
	dst.Status = demov1alpha1.SampleStatus{
		ObservedGeneration: src.Status.ObservedGeneration,
		ConfigMapName:      src.Status.ConfigMapName,
		Conditions:         src.Status.DeepCopy().Conditions,
	}
	return nil
}
