package cluster

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/operator"
)

// CheckCRDs fails when a CRD of the operator's (Subject.CRDs) lacks a field that its Go type, as
// the Subject's scheme knows it, declares: a CRD generated before the last change of the API.
// The API server would drop that field from every object (it prunes what the schema does not
// name), and a scenario of it would fail for the wrong reason, or pass for one.
func CheckCRDs(subject operator.Subject) error {
	dirs, err := controlplane.FindAll(subject.CRDs, controlplane.DefaultCRDs)
	if err != nil {
		return err
	}
	read := envtest.CRDInstallOptions{Paths: dirs}
	if err := envtest.ReadCRDFiles(&read); err != nil {
		return err
	}
	var missing []string
	for _, crd := range read.CRDs {
		for _, version := range crd.Spec.Versions {
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind}
			obj, err := subject.Scheme.New(gvk)
			if err != nil || version.Schema == nil || version.Schema.OpenAPIV3Schema == nil {
				continue // a kind the operator does not know, or a schema that names nothing
			}
			for _, field := range absent(reflect.TypeOf(obj).Elem(), *version.Schema.OpenAPIV3Schema, "") {
				missing = append(missing, fmt.Sprintf("%s %s", gvk.Kind, field))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the CRDs in %v are older than the API: they lack %s, which the Go types declare; regenerate them (make manifests)", dirs, strings.Join(missing, ", "))
	}
	return nil
}

// absent lists the JSON fields of t (at path) that the schema props does not name.
func absent(t reflect.Type, props apiextensionsv1.JSONSchemaProps, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if implements(t) || props.XPreserveUnknownFields != nil && *props.XPreserveUnknownFields {
		return nil // it says itself how it reads as JSON, or the schema takes anything
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if props.Items != nil && props.Items.Schema != nil {
			return absent(t.Elem(), *props.Items.Schema, path+"[]")
		}
	case reflect.Map:
		if props.AdditionalProperties != nil && props.AdditionalProperties.Schema != nil {
			return absent(t.Elem(), *props.AdditionalProperties.Schema, path+"[*]")
		}
	case reflect.Struct:
		return absentFields(t, props, path)
	}
	return nil
}

// absentFields lists the JSON fields of the struct t (at path) that props does not name.
func absentFields(t reflect.Type, props apiextensionsv1.JSONSchemaProps, path string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-" || path == "" && (name == "metadata" || f.Name == "TypeMeta"):
		case f.Anonymous && name == "":
			out = append(out, absent(f.Type, props, path)...)
		default:
			at := strings.TrimPrefix(path+"."+name, ".")
			if property, ok := props.Properties[name]; ok {
				out = append(out, absent(f.Type, property, at)...)
			} else {
				out = append(out, at)
			}
		}
	}
	return out
}

// implements says whether t marshals itself to JSON (metav1.Time, say): its Go fields are not its
// JSON's.
func implements(t reflect.Type) bool {
	marshaler := reflect.TypeFor[json.Marshaler]()
	return t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)
}
