package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
	webhookconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
)

// widgetV1 is a Widget as v1 has it: spec.replicas, which v2 keeps as spec.scale.replicas.
type widgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Replicas int32 `json:"replicas,omitempty"`
	} `json:"spec"`
}

// widgetV2 is a Widget as v2, the version stored, has it: the Hub that v1 converts to and from.
type widgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Scale struct {
			Replicas int32 `json:"replicas,omitempty"`
		} `json:"scale"`
	} `json:"spec"`
}

func (*widgetV2) Hub() {}

func (w *widgetV1) ConvertTo(hub conversion.Hub) error {
	v2, ok := hub.(*widgetV2)
	if !ok {
		return fmt.Errorf("convert a v1 Widget to %T, not a v2 Widget", hub)
	}
	v2.ObjectMeta, v2.Spec.Scale.Replicas = w.ObjectMeta, w.Spec.Replicas
	return nil
}

func (w *widgetV1) ConvertFrom(hub conversion.Hub) error {
	v2, ok := hub.(*widgetV2)
	if !ok {
		return fmt.Errorf("convert a v1 Widget from %T, not a v2 Widget", hub)
	}
	w.ObjectMeta, w.Spec.Replicas = v2.ObjectMeta, v2.Spec.Scale.Replicas
	return nil
}

func (w *widgetV1) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (w *widgetV2) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// converting is a toy operator of Widgets (the CRD in testdata/conversion/crd) with no
// controllers, only the webhook that converts them between v1 and v2, which the builder registers
// because its scheme, and no other, knows both versions and how they convert.
var converting = operator.Subject{
	Scheme:           widgets(&widgetV1{}, &widgetV2{}),
	Webhooks:         func(mgr ctrl.Manager) error { return ctrl.NewWebhookManagedBy(mgr, &widgetV2{}).Complete() },
	WebhookManifests: []string{"testing/harness/cluster/testdata/conversion/webhook"},
	CRDs:             []string{"testing/harness/cluster/testdata/conversion/crd"},
}

// widgets is a scheme that knows Widgets, v1 as v1 and v2 as v2, and CRDs.
func widgets(v1, v2 runtime.Object) *runtime.Scheme {
	s := runtime.NewScheme()
	for version, obj := range map[string]runtime.Object{"v1": v1, "v2": v2} {
		gv := schema.GroupVersion{Group: "conversion.example.org", Version: version}
		s.AddKnownTypeWithName(gv.WithKind("Widget"), obj)
		metav1.AddToGroupVersion(s, gv)
	}
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	return s
}

// TestStartControlPlaneServesConversion: StartControlPlane installs a CRD whose kind the
// subject's scheme can convert once, its conversion pointed at the subject's webhooks from the
// start, and serves them there, so that a Widget written in either version reads back converted
// in the other, through the Cluster's own Client and the scheme's Go types, from the first
// request on. A CRD installed without its conversion and updated after would be converted by the
// API server's "None" strategy (apiVersion changed, fields as they are) until its informer saw
// the update.
func TestStartControlPlaneServesConversion(t *testing.T) {
	ctx := context.Background()
	c := startControlPlane(t, converting)

	inV2 := createV2(ctx, t, c.Client)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: "widgets.conversion.example.org"}, crd); err != nil {
		t.Fatal(err)
	}
	if strategy := crd.Spec.Conversion.Strategy; strategy != apiextensionsv1.WebhookConverter {
		t.Fatalf("the Widgets' CRD converts by %s, want by the subject's webhook", strategy)
	}
	if crd.Generation != 1 {
		t.Fatalf("the Widgets' CRD is at generation %d: installed, then changed; want it installed once, converting from the start", crd.Generation)
	}

	if err := readsInV1(ctx, c.Client, inV2); err != nil {
		t.Error(err)
	}

	inV1 := &widgetV1{ObjectMeta: metav1.ObjectMeta{Name: "written-in-v1", Namespace: "default"}}
	inV1.Spec.Replicas = 5
	if err := c.Client.Create(ctx, inV1); err != nil {
		t.Fatalf("create a v1 Widget: %v", err)
	}
	asV2 := &widgetV2{}
	if err := c.Client.Get(ctx, client.ObjectKeyFromObject(inV1), asV2); err != nil {
		t.Fatalf("read the v1 Widget in v2: %v", err)
	}
	if asV2.Spec.Scale.Replicas != 5 {
		t.Errorf("the v1 Widget read in v2 has spec.scale.replicas %d, want its spec.replicas, 5", asV2.Spec.Scale.Replicas)
	}
}

// plainWidgetV1 and plainWidgetV2 are Widgets as widgetV1 and widgetV2 hold them, in types that
// know nothing of conversion (no Hub, no ConvertTo or ConvertFrom): their conversions are
// functions that the webhooks' converter holds (WithConverter), as an operator keeps them out of
// its API types.
type (
	plainWidgetV1 widgetV1
	plainWidgetV2 widgetV2
)

func (w *plainWidgetV1) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (w *plainWidgetV2) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// convertingWithAConverter is converting with the plain Widgets: its webhooks register a
// hub-and-spoke converter of functions, v2 the hub, and its scheme alone could convert nothing.
var convertingWithAConverter = operator.Subject{
	Scheme: widgets(&plainWidgetV1{}, &plainWidgetV2{}),
	Webhooks: func(mgr ctrl.Manager) error {
		return ctrl.NewWebhookManagedBy(mgr, &plainWidgetV2{}).WithConverter(webhookconversion.NewHubSpokeConverter(&plainWidgetV2{},
			webhookconversion.NewSpokeConverter(&plainWidgetV1{},
				func(_ context.Context, v2 *plainWidgetV2, v1 *plainWidgetV1) error {
					v1.ObjectMeta, v1.Spec.Replicas = v2.ObjectMeta, v2.Spec.Scale.Replicas
					return nil
				},
				func(_ context.Context, v1 *plainWidgetV1, v2 *plainWidgetV2) error {
					v2.ObjectMeta, v2.Spec.Scale.Replicas = v1.ObjectMeta, v1.Spec.Replicas
					return nil
				}))).Complete()
	},
	WebhookManifests: converting.WebhookManifests,
	CRDs:             converting.CRDs,
}

// TestStartControlPlaneServesAConverterOfTheWebhooks: a kind whose types cannot convert, converted
// by a converter its webhooks register (WithConverter), converts through them from the start,
// as one whose types convert does, and the CRD is past the API server's create hold-back when
// StartControlPlane returns. envtest's own test of what converts reads the types alone
// (conversion.IsConvertible), and would leave the CRD converting by None: a Widget written in v2
// would read in v1 without its replicas.
func TestStartControlPlaneServesAConverterOfTheWebhooks(t *testing.T) {
	ctx := context.Background()
	c, _, err := StartControlPlane(ctx, convertingWithAConverter)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})

	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: "widgets.conversion.example.org"}, crd); err != nil {
		t.Fatal(err)
	}
	if established := apiextensionshelpers.FindCRDCondition(crd, apiextensionsv1.Established); established == nil {
		t.Error("the Widgets' CRD is not established")
	} else if before := started.Sub(established.LastTransitionTime.Time); before < controlplane.CreateHoldBack {
		t.Errorf("the Widgets' CRD was established %s before StartControlPlane returned: a create then is held back %s", before.Round(time.Millisecond), controlplane.CreateHoldBack)
	}
	if strategy := crd.Spec.Conversion.Strategy; strategy != apiextensionsv1.WebhookConverter {
		t.Fatalf("the Widgets' CRD converts by %s, want by the converter the subject's webhooks register", strategy)
	}
	if crd.Generation != 1 {
		t.Fatalf("the Widgets' CRD is at generation %d: installed, then changed; want it installed once, converting from the start", crd.Generation)
	}

	inV2 := &plainWidgetV2{ObjectMeta: metav1.ObjectMeta{Name: "written-in-v2", Namespace: "default"}}
	inV2.Spec.Scale.Replicas = 3
	if err := c.Client.Create(ctx, inV2); err != nil {
		t.Fatalf("create a v2 Widget: %v", err)
	}
	asV1 := &plainWidgetV1{}
	if err := c.Client.Get(ctx, client.ObjectKeyFromObject(inV2), asV1); err != nil {
		t.Fatalf("read the v2 Widget in v1: %v", err)
	}
	if asV1.Spec.Replicas != 3 {
		t.Errorf("the v2 Widget read in v1 has spec.replicas %d, want its spec.scale.replicas, 3", asV1.Spec.Replicas)
	}
}

// TestWebhooksServedOnAControlPlaneStartedWithoutThem: a subject with no webhooks (a scaffold's,
// before `kubebuilder create webhook`) gets its control plane with its CRDs, converting nothing
// even where its scheme could, and no webhook configuration. ServeWebhooks then points a CRD's
// conversion at the webhooks it serves, as on a control plane that runs already (make
// envtest-up's, a local cluster's): once the API server has seen the CRD updated, a Widget written
// in v2 reads back converted in v1.
func TestWebhooksServedOnAControlPlaneStartedWithoutThem(t *testing.T) {
	ctx := context.Background()
	c := startControlPlane(t, operator.Subject{Scheme: converting.Scheme, CRDs: converting.CRDs})
	configurations := &metav1.PartialObjectMetadataList{} // the subject's scheme knows only Widgets
	configurations.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingWebhookConfigurationList"))
	if err := c.Client.List(ctx, configurations); err != nil || len(configurations.Items) != 0 {
		t.Errorf("mutating webhook configurations: %d (%v), want none", len(configurations.Items), err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: "widgets.conversion.example.org"}, crd); err != nil {
		t.Fatal(err)
	}
	if strategy := crd.Spec.Conversion.Strategy; strategy != apiextensionsv1.NoneConverter {
		t.Errorf("the Widgets' CRD of a subject without webhooks converts by %s, want None: no webhook serves it", strategy)
	}

	stop, err := ServeWebhooks(c.Config, converting)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stop the webhooks: %v", err)
		}
	})
	inV2 := createV2(ctx, t, c.Client)
	if err := poll.Until(ctx, 50*time.Millisecond, 10*time.Second, func(ctx context.Context) error {
		return readsInV1(ctx, c.Client, inV2)
	}); err != nil {
		t.Error(err)
	}
}

// startControlPlane is StartControlPlane's cluster with subject in it, stopped when t ends.
func startControlPlane(t *testing.T, subject operator.Subject) *Cluster {
	t.Helper()
	c, _, err := StartControlPlane(context.Background(), subject)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return c
}

// createV2 creates a v2 Widget whose spec.scale.replicas is 3.
func createV2(ctx context.Context, t *testing.T, c client.Client) *widgetV2 {
	t.Helper()
	inV2 := &widgetV2{ObjectMeta: metav1.ObjectMeta{Name: "written-in-v2", Namespace: "default"}}
	inV2.Spec.Scale.Replicas = 3
	if err := c.Create(ctx, inV2); err != nil {
		t.Fatalf("create a v2 Widget: %v", err)
	}
	return inV2
}

// readsInV1 says whether inV2 reads back in v1 converted: spec.replicas its spec.scale.replicas, 3.
func readsInV1(ctx context.Context, c client.Client, inV2 *widgetV2) error {
	asV1 := &widgetV1{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(inV2), asV1); err != nil {
		return fmt.Errorf("read the v2 Widget in v1: %w", err)
	}
	if asV1.Spec.Replicas != 3 {
		return fmt.Errorf("the v2 Widget read in v1 has spec.replicas %d, want its spec.scale.replicas, 3", asV1.Spec.Replicas)
	}
	return nil
}

// TestWebhooksDownAsWithTheOperatorDown: the webhooks that the test process serves go down as a
// cluster's go with the operator's Pods (Webhooks.Down): a read that needs a conversion then
// fails, saying so, while one that needs none still answers; Webhooks.Up serves them again, and a
// conversion answers as soon as it returns. Either, called twice, changes nothing the second time.
func TestWebhooksDownAsWithTheOperatorDown(t *testing.T) {
	ctx := context.Background()
	c := startControlPlane(t, converting)
	inV2 := createV2(ctx, t, c.Client)

	for range 2 {
		if err := c.Webhooks.Down(); err != nil {
			t.Fatalf("Down: %v", err)
		}
	}
	if err := readsInV1(ctx, c.Client, inV2); err == nil || !strings.Contains(err.Error(), "conversion webhook") {
		t.Errorf("with the webhooks down, a read in v1: %v; want the API server's failed conversion webhook", err)
	}
	if err := c.Client.Get(ctx, client.ObjectKeyFromObject(inV2), &widgetV2{}); err != nil {
		t.Errorf("with the webhooks down, a read in v2, the version stored: %v; want it read", err)
	}

	for range 2 {
		if err := c.Webhooks.Up(); err != nil {
			t.Fatalf("Up: %v", err)
		}
	}
	if err := readsInV1(ctx, c.Client, inV2); err != nil {
		t.Errorf("once Up has returned: %v", err)
	}
}

// TestWebhooksThatCannotStopOrServeSayWhy: Down passes on, saying what failed, the error of the
// stop that serving returned; NewWebhooks (and so Up) passes on serve's.
func TestWebhooksThatCannotStopOrServeSayWhy(t *testing.T) {
	stuck := errors.New("the server did not shut down")
	w, err := NewWebhooks(func() (func() error, error) { return func() error { return stuck }, nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Down(); !errors.Is(err, stuck) || !strings.Contains(err.Error(), "stop serving the webhooks") {
		t.Errorf("Down of webhooks that cannot stop: %v; want it to say it could not stop serving them, and why", err)
	}
	taken := errors.New("the port is taken")
	if _, err := NewWebhooks(func() (func() error, error) { return nil, taken }); !errors.Is(err, taken) {
		t.Errorf("webhooks that cannot be served: %v; want serve's error", err)
	}
}
