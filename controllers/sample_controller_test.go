package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// fakeAPI is a fake API server (controller-runtime's fake client, which applies as the API server
// does, field by field) that records every write the reconciler sends, the uid each apply of a
// ConfigMap names ("" for none), and fails the calls named in faults.
type fakeAPI struct {
	client.Client
	writes []string
	uids   []types.UID
	faults map[string]error
	events *events.FakeRecorder
}

// call names an API call as "<verb> <Kind>[/<subresource>]", e.g. "apply Sample/status".
func call(c client.Client, verb string, obj runtime.Object, sub string) string {
	gvk, _ := c.GroupVersionKindFor(obj)
	if sub != "" {
		return fmt.Sprintf("%s %s/%s", verb, gvk.Kind, sub)
	}
	return fmt.Sprintf("%s %s", verb, gvk.Kind)
}

// applyCall names an apply as call does, by the kind its apply configuration names.
func applyCall(obj runtime.ApplyConfiguration, sub string) string {
	kind := ""
	if k, ok := obj.(interface{ GetKind() *string }); ok && k.GetKind() != nil {
		kind = *k.GetKind()
	}
	if sub != "" {
		return fmt.Sprintf("apply %s/%s", kind, sub)
	}
	return "apply " + kind
}

func newFakeAPI(t testing.TB, objs ...client.Object) *fakeAPI {
	t.Helper()
	api := &fakeAPI{faults: map[string]error{}, events: events.NewFakeRecorder(10)}
	write := func(name string) error {
		api.writes = append(api.writes, name)
		return api.faults[name]
	}
	api.Client = fake.NewClientBuilder().
		WithScheme(NewScheme()).
		WithObjects(objs...).
		WithStatusSubresource(&demov1beta1.Sample{}).
		WithReturnManagedFields().
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if err := api.faults[call(c, "get", obj, "")]; err != nil {
					return err
				}
				return c.Get(ctx, key, obj, opts...)
			},
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if err := write(call(c, "create", obj, "")); err != nil {
					return err
				}
				return c.Create(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if err := write(call(c, "update", obj, "")); err != nil {
					return err
				}
				return c.Update(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if err := write(call(c, "patch", obj, "")); err != nil {
					return err
				}
				return c.Patch(ctx, obj, patch, opts...)
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				if err := write(call(c, "update", obj, sub)); err != nil {
					return err
				}
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if err := write(call(c, "patch", obj, sub)); err != nil {
					return err
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				if cm, ok := obj.(*corev1ac.ConfigMapApplyConfiguration); ok {
					api.uids = append(api.uids, ptr.Deref(cm.UID, "")) // before the call, which overwrites cm with the answer
				}
				if err := write(applyCall(obj, "")); err != nil {
					return err
				}
				return c.Apply(ctx, obj, opts...)
			},
			SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
				if err := write(applyCall(obj, sub)); err != nil {
					return err
				}
				return c.SubResource(sub).Apply(ctx, obj, opts...)
			},
		}).
		Build()
	return api
}

// reconcile runs one pass over the Sample team-a/greeting, with api as the cache and the API reader.
func (api *fakeAPI) reconcile(t testing.TB) (ctrl.Result, error) {
	t.Helper()
	api.writes, api.uids = nil, nil
	r := &SampleReconciler{Client: api, APIReader: api, Recorder: api.events}
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}})
}

// converged runs passes until one sends no write, and fails if that takes more than three.
func (api *fakeAPI) converged(t testing.TB) {
	t.Helper()
	for range 3 {
		if _, err := api.reconcile(t); err != nil {
			t.Fatalf("reconcile: %v", err)
		}
		if len(api.writes) == 0 {
			return
		}
	}
	t.Fatalf("still writing after 3 passes: %v", api.writes)
}

// sample reads the Sample as the fake API server holds it, whatever faults are injected.
func (api *fakeAPI) sample(t *testing.T) *demov1beta1.Sample {
	t.Helper()
	faults := api.faults
	api.faults = nil
	defer func() { api.faults = faults }()
	sample := &demov1beta1.Sample{}
	if err := api.Get(context.Background(), client.ObjectKey{Namespace: "team-a", Name: "greeting"}, sample); err != nil {
		t.Fatalf("get Sample: %v", err)
	}
	return sample
}

// changeSpec changes the Sample's spec with change, as a user would, and moves its generation as
// the API server would (the fake does not).
func (api *fakeAPI) changeSpec(t *testing.T, change func(*demov1beta1.SampleSpec)) {
	t.Helper()
	sample := api.sample(t)
	change(&sample.Spec)
	sample.Generation++
	if err := api.Client.Update(context.Background(), sample); err != nil {
		t.Fatal(err)
	}
}

func (api *fakeAPI) configMap(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := api.Get(context.Background(), client.ObjectKey{Namespace: "team-a", Name: "greeting-config"}, cm); err != nil {
		t.Fatalf("get ConfigMap: %v", err)
	}
	return cm
}

// wantEvents takes the events recorded since the last call and fails unless they are want, in
// order. It never waits: Reconcile records its events before it returns.
func wantEvents(t *testing.T, api *fakeAPI, want ...string) {
	t.Helper()
	var got []string
	for len(api.events.Events) > 0 {
		got = append(got, <-api.events.Events)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

func wantWrites(t *testing.T, api *fakeAPI, want ...string) {
	t.Helper()
	if fmt.Sprint(api.writes) != fmt.Sprint(want) {
		t.Errorf("writes = %q, want %q", api.writes, want)
	}
}

func TestReconcileCreatesTheConfigMapThenRests(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "apply ConfigMap", "apply Sample/status")
	if got := api.configMap(t).Data[demov1alpha1.MessageKey]; got != "hello world" {
		t.Errorf("data.message = %q", got)
	}
	wantEvents(t, api, "Normal Created created ConfigMap greeting-config")

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	wantWrites(t, api /* none: everything is as desired */)
}

func TestReconcileRestoresDriftWithOneWrite(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	api.converged(t)
	cm := api.configMap(t)
	cm.Data[demov1alpha1.MessageKey] = "drifted"
	cm.Data["extra"] = "kept"
	if err := api.Client.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}

	wantEvents(t, api, "Normal Created created ConfigMap greeting-config")
	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "apply ConfigMap")
	wantEvents(t, api, "Normal Updated updated ConfigMap greeting-config to match the Sample's spec")
	if got := api.configMap(t).Data; got[demov1alpha1.MessageKey] != "hello world" || got["extra"] != "kept" {
		t.Errorf("data = %v", got)
	}
}

func TestReconcileNeverWritesAConfigMapItDoesNotControl(t *testing.T) {
	theirs := &corev1.ConfigMap{Data: map[string]string{demov1alpha1.MessageKey: "theirs"}}
	theirs.Name, theirs.Namespace = "greeting-config", "team-a"
	api := newFakeAPI(t, newSample("greeting", "hello world"), theirs)

	result, err := api.reconcile(t)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "apply Sample/status")
	if result.RequeueAfter == 0 {
		t.Error("a conflict should be looked at again later")
	}
	wantEvents(t, api, "Warning ConfigMapConflict "+conflictMessage)

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	wantWrites(t, api /* none: the status already says so */)
	wantEvents(t, api /* none: the conflict is recorded once */)
	if got := api.configMap(t); got.Data[demov1alpha1.MessageKey] != "theirs" || len(got.OwnerReferences) != 0 {
		t.Errorf("their ConfigMap was changed: %+v", got)
	}
}

// TestAConflictIsLookedAtAgainEvery10sUnlessToldOtherwise: a Sample whose ConfigMap name is
// taken is reconciled again after 10 s, as the README promises, or after --conflict-recheck.
func TestAConflictIsLookedAtAgainEvery10sUnlessToldOtherwise(t *testing.T) {
	for _, tc := range []struct{ told, want time.Duration }{{0, 10 * time.Second}, {2 * time.Second, 2 * time.Second}} {
		theirs := &corev1.ConfigMap{Data: map[string]string{demov1alpha1.MessageKey: "theirs"}}
		theirs.Name, theirs.Namespace = "greeting-config", "team-a"
		api := newFakeAPI(t, newSample("greeting", "hello world"), theirs)
		r := &SampleReconciler{Client: api, APIReader: api, Recorder: api.events, ConflictRecheck: tc.told}
		result, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}})
		if err != nil || result.RequeueAfter != tc.want {
			t.Errorf("told %s: Reconcile returned %+v, %v; want it looked at again after %s", tc.told, result, err, tc.want)
		}
	}
}

func TestReconcileOfAGoneSampleDoesNothing(t *testing.T) {
	api := newFakeAPI(t)
	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api)
}

// The API server's refusals, as it words them.
var (
	configMaps = schema.GroupResource{Resource: "configmaps"}
	// refusedByPolicy is how a ValidatingAdmissionPolicy refuses a write: 422 Invalid.
	refusedByPolicy = &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
		Message: `configmaps "greeting-config" is forbidden: ValidatingAdmissionPolicy 'freeze' with binding 'freeze' denied request: ConfigMaps are frozen`,
	}}
	refusedByQuota = apierrors.NewForbidden(configMaps, "greeting-config",
		errors.New("exceeded quota: configmaps, requested: configmaps=1, used: configmaps=10, limited: configmaps=10"))
	refusedByRBAC = &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: `configmaps "greeting-config" is forbidden: User "system:serviceaccount:operator-demo-system:operator-demo-controller-manager" cannot create resource "configmaps" in API group "" in the namespace "team-a"`,
	}}
)

// TestReconcileReturnsEveryFault injects each kind of API failure into each call Reconcile makes.
// The failure must come back as the error (controller-runtime then retries with backoff), never be
// swallowed, and leave nothing that the next pass cannot repair. A refusal the Sample's user can
// act on is also in the status the failed pass leaves; any other failure leaves status as it was.
func TestReconcileReturnsEveryFault(t *testing.T) {
	faults := map[string]struct {
		err error
		// reason is that of the Ready=False a failed ConfigMap call leaves; "" leaves status as it was.
		reason string
	}{
		"Conflict":                      {apierrors.NewConflict(configMaps, "greeting-config", errors.New("changed")), ""},
		"ServerTimeout":                 {apierrors.NewServerTimeout(configMaps, "get", 1), ""},
		"TooManyRequests":               {apierrors.NewTooManyRequests("slow down", 1), ""},
		"NotFound":                      {apierrors.NewNotFound(configMaps, "greeting-config"), ""},
		"generic":                       {errors.New("connection reset by peer"), ""},
		"Invalid (an admission policy)": {refusedByPolicy, demov1alpha1.ReasonConfigMapRefused},
		"Forbidden (a quota)":           {refusedByQuota, demov1alpha1.ReasonQuotaExceeded},
		"Forbidden (RBAC)":              {refusedByRBAC, demov1alpha1.ReasonConfigMapForbidden},
	}
	// Each call, and a starting state in which Reconcile makes it.
	calls := []struct {
		call, when string
		state      func(api *fakeAPI, t *testing.T)
	}{
		{"get Sample", "", func(*fakeAPI, *testing.T) {}},
		{"get ConfigMap", "", func(*fakeAPI, *testing.T) {}},
		{"apply ConfigMap", " creating it", func(*fakeAPI, *testing.T) {}},
		{"apply ConfigMap", " updating it", drifted},
		{"patch ConfigMap", " handing it over", writtenByThePreviousRelease},
		{"apply Sample/status", "", func(*fakeAPI, *testing.T) {}},
	}
	for _, c := range calls {
		for name, fault := range faults {
			t.Run(c.call+c.when+" fails with "+name, func(t *testing.T) {
				api := newFakeAPI(t, newSample("greeting", "hello world"))
				c.state(api, t)
				stored := api.sample(t).Status
				api.faults[c.call] = fault.err

				_, err := api.reconcile(t)
				wantReturned(t, c.call, name, err, fault.err)
				if strings.HasSuffix(c.call, "ConfigMap") && fault.reason != "" {
					wantRefused(t, api.sample(t), fault.reason, fault.err)
				} else if !strings.HasSuffix(c.call, "ConfigMap") || name != "NotFound" {
					if diff := cmp.Diff(stored, api.sample(t).Status); diff != "" {
						t.Errorf("the failed pass changed status (-before +after):\n%s", diff)
					}
				}

				delete(api.faults, c.call)
				api.converged(t)
				if got := api.configMap(t).Data[demov1alpha1.MessageKey]; got != "hello world" {
					t.Errorf("after the fault cleared, data.message = %q", got)
				}
				if ready := meta.FindStatusCondition(api.sample(t).Status.Conditions, demov1alpha1.ConditionReady); ready == nil || ready.Reason != demov1alpha1.ReasonSynced {
					t.Errorf("after the fault cleared, Ready = %+v, want reason Synced", ready)
				}
			})
		}
	}
}

// wantReturned fails unless Reconcile, whose call failed with the fault called name, returned err
// as it should: the fault, wrapped, except where the fault is an answer.
func wantReturned(t *testing.T, call, name string, err, fault error) {
	t.Helper()
	switch {
	case call == "get Sample" && name == "NotFound":
		// The one fault that is an answer: the Sample is gone, there is nothing to do.
		if err != nil {
			t.Errorf("a Sample that is gone is not an error: %v", err)
		}
	case call == "apply Sample/status" && name == "NotFound":
		// The Sample was deleted while the pass worked: nothing to report to.
		if err != nil {
			t.Errorf("a Sample deleted mid-pass is not an error: %v", err)
		}
	case call == "get ConfigMap" && name == "NotFound":
		// Not in the cache: the ConfigMap is created, and the create succeeds.
		if err != nil {
			t.Errorf("a ConfigMap missing from the cache is created: %v", err)
		}
	case !errors.Is(err, fault):
		t.Errorf("Reconcile returned %v, want the injected %v wrapped", err, fault)
	}
}

// wantRefused fails unless sample reports Ready=False with reason for its generation, in a message
// that quotes the API server's refusal.
func wantRefused(t *testing.T, sample *demov1beta1.Sample, reason string, refusal error) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(refusal, &status) {
		t.Fatalf("%v is not an API server's error", refusal)
	}
	serverMessage := status.Status().Message
	ready := meta.FindStatusCondition(sample.Status.Conditions, demov1alpha1.ConditionReady)
	switch {
	case ready == nil:
		t.Errorf("no Ready condition after the refused write; want Ready=False, reason %s", reason)
	case ready.Status != metav1.ConditionFalse || ready.Reason != reason:
		t.Errorf("Ready=%s, reason %s after the refused write; want Ready=False, reason %s", ready.Status, ready.Reason, reason)
	case !strings.Contains(ready.Message, serverMessage):
		t.Errorf("Ready's message %q does not quote the API server's %q", ready.Message, serverMessage)
	case ready.ObservedGeneration != sample.Generation || sample.Status.ObservedGeneration != sample.Generation:
		t.Errorf("status describes generation %d (condition %d), the Sample is at %d", sample.Status.ObservedGeneration, ready.ObservedGeneration, sample.Generation)
	}
}

// TestARefusedWriteIsReportedOncePerDistinctFailure: status and a Warning event say what the API
// server refused, once for each distinct refusal, however often the write is retried.
func TestARefusedWriteIsReportedOncePerDistinctFailure(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	pass := func(fault error, wantStatusWrite bool, events ...string) {
		t.Helper()
		api.faults["apply ConfigMap"] = fault
		if _, err := api.reconcile(t); fault != nil && !errors.Is(err, fault) {
			t.Errorf("Reconcile returned %v, want the refusal", err)
		}
		want := []string{"apply ConfigMap"}
		if wantStatusWrite {
			want = append(want, "apply Sample/status")
		}
		wantWrites(t, api, want...)
		wantEvents(t, api, events...)
	}
	policy := refusedByPolicy.ErrStatus.Message
	quota := refusedByQuota.ErrStatus.Message

	pass(refusedByPolicy, true, "Warning ConfigMapRefused the API server refused to write ConfigMap greeting-config: "+policy)
	pass(refusedByPolicy, false /* the same refusal, retried: nothing new to say */)
	pass(refusedByPolicy, false)
	// A new generation, refused alike: status says which generation it observed; the event
	// would say nothing new.
	api.changeSpec(t, func(*demov1beta1.SampleSpec) {})
	pass(refusedByPolicy, true)
	pass(refusedByQuota, true, "Warning QuotaExceeded the API server refused to write ConfigMap greeting-config: "+quota)
	pass(nil, true, "Normal Created created ConfigMap greeting-config")
	if ready := meta.FindStatusCondition(api.sample(t).Status.Conditions, demov1alpha1.ConditionReady); ready == nil || ready.Reason != demov1alpha1.ReasonSynced {
		t.Errorf("once the write went through, Ready = %+v, want reason Synced", ready)
	}
}

// TestASampleGoneMidPassIsToldNothing: a Sample deleted while its pass worked gets no Warning
// event about the refusal its status could not record: there is no one left to tell.
func TestASampleGoneMidPassIsToldNothing(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	api.faults["apply ConfigMap"] = refusedByPolicy
	api.faults["apply Sample/status"] = apierrors.NewNotFound(schema.GroupResource{Group: demov1alpha1.GroupVersion.Group, Resource: "samples"}, "greeting")
	if _, err := api.reconcile(t); !errors.Is(err, refusedByPolicy) || apierrors.IsNotFound(err) {
		t.Errorf("Reconcile returned %v, want the refusal alone", err)
	}
	wantEvents(t, api /* none */)
}

// TestAStoppingOperatorLogsNoErrorForItsOwnCancellation: a pass that the manager cancels as it
// stops is abandoned, not failed (controller-runtime logs every returned error as "Reconciler
// error"); the next operator reconciles every Sample when it starts. A pass that times out is
// still an error.
func TestAStoppingOperatorLogsNoErrorForItsOwnCancellation(t *testing.T) {
	for _, call := range []string{"apply ConfigMap", "apply Sample/status"} {
		api := newFakeAPI(t, newSample("greeting", "hello world"))
		ctx, cancel := context.WithCancel(context.Background())
		api.faults[call] = fmt.Errorf("write: %w", context.Canceled)
		cancel()
		r := &SampleReconciler{Client: api, APIReader: api, Recorder: api.events}
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}); err != nil {
			t.Errorf("%s cancelled as the operator stops: Reconcile returned %v, want nil", call, err)
		}
		if stored := api.sample(t).Status; len(stored.Conditions) != 0 {
			t.Errorf("%s cancelled: status written anyway: %+v", call, stored)
		}
	}

	api := newFakeAPI(t, newSample("greeting", "hello world"))
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	api.faults["apply ConfigMap"] = context.DeadlineExceeded
	r := &SampleReconciler{Client: api, APIReader: api, Recorder: api.events}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a pass that timed out: Reconcile returned %v, want the deadline", err)
	}
}

// TestTheControllerRunsItsWorkersWithItsRetries: the controller reconciles
// DefaultMaxConcurrentReconciles Samples at once unless told otherwise, and paces its retries
// with retryRateLimiter, not controller-runtime's default.
func TestTheControllerRunsItsWorkersWithItsRetries(t *testing.T) {
	if got := (&SampleReconciler{}).options().MaxConcurrentReconciles; got != DefaultMaxConcurrentReconciles {
		t.Errorf("by default %d workers, want DefaultMaxConcurrentReconciles (%d)", got, DefaultMaxConcurrentReconciles)
	}
	opts := (&SampleReconciler{MaxConcurrentReconciles: 3}).options()
	if opts.MaxConcurrentReconciles != 3 {
		t.Errorf("told 3, it runs %d workers", opts.MaxConcurrentReconciles)
	}
	if opts.RateLimiter == nil {
		t.Fatal("no rate limiter: controller-runtime's default backs off to 1000 s")
	}
	item := ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}
	var last time.Duration
	for range 40 {
		last = opts.RateLimiter.When(item)
	}
	if last != MaxRetryDelay {
		t.Errorf("after 40 failures a retry waits %s, want MaxRetryDelay (%s)", last, MaxRetryDelay)
	}
}

// TestRetriesBackOffUpToMaxRetryDelay: a Sample whose write keeps failing is retried sooner at
// first and then every MaxRetryDelay, not after minutes (controller-runtime's default grows to
// 1000 s).
func TestRetriesBackOffUpToMaxRetryDelay(t *testing.T) {
	limiter := retryRateLimiter()
	item := ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}
	delays := make([]time.Duration, 0, 40)
	for range 40 {
		delays = append(delays, limiter.When(item))
	}
	if delays[0] > 10*time.Millisecond {
		t.Errorf("first retry after %s, want it within milliseconds", delays[0])
	}
	for i := 1; i < len(delays); i++ {
		if delays[i] < delays[i-1] {
			t.Errorf("retry %d after %s, sooner than retry %d (%s)", i, delays[i], i-1, delays[i-1])
		}
	}
	if last := delays[len(delays)-1]; last != MaxRetryDelay || last < 10*time.Second {
		t.Errorf("after 40 failures a retry waits %s, want the cap, MaxRetryDelay (%s): seconds, so that a Sample that keeps failing costs little", last, MaxRetryDelay)
	}
	limiter.Forget(item)
	if again := limiter.When(item); again > 10*time.Millisecond {
		t.Errorf("after a success the next failure waits %s, want the backoff to start over", again)
	}
}

// TestFailingSamplesShareTenRetriesASecond: however many Samples fail at once, the controller
// retries them at 10 a second once a burst of 100 is spent, and never stops retrying them.
func TestFailingSamplesShareTenRetriesASecond(t *testing.T) {
	limiter := retryRateLimiter()
	var last time.Duration
	for i := range 101 {
		last = limiter.When(ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: fmt.Sprint("sample-", i)}})
	}
	if last <= 0 || last > time.Second {
		t.Errorf("the 101st failing Sample waits %s for its first retry, want about a tenth of a second", last)
	}
}

// drifted converges, then drifts the ConfigMap, so that the next pass applies it again.
func drifted(api *fakeAPI, t *testing.T) {
	t.Helper()
	api.converged(t)
	cm := api.configMap(t)
	cm.Data[demov1alpha1.MessageKey] = "drifted"
	if err := api.Client.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
}

// writtenByThePreviousRelease creates the Sample's ConfigMap as the release before server-side
// apply wrote it: its label, its controller reference, its data, under PreviousFieldManager.
func writtenByThePreviousRelease(api *fakeAPI, t *testing.T) {
	t.Helper()
	sample := api.sample(t)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "greeting-config", Namespace: "team-a", Labels: map[string]string{ManagedByLabel: ManagedByValue},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sample, demov1beta1.GroupVersion.WithKind("Sample"))}},
		Data: maps.Clone(sample.Spec.Data),
	}
	if err := api.Client.Create(context.Background(), cm, client.FieldOwner(PreviousFieldManager)); err != nil {
		t.Fatal(err)
	}
}

// cacheBlind is a cache that holds no ConfigMap, as the operator's label-selected cache holds
// none without the managed-by label; everything else it reads from the fake API server.
type cacheBlind struct{ client.Client }

func (c cacheBlind) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.ConfigMap); ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, key.Name)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// countingReader counts the reads that reach the API server past the cache.
type countingReader struct {
	client.Reader
	reads int
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.reads++
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestReconcileLooksPastTheCacheBeforeItCreates: a ConfigMap missing from the cache, which holds
// only labelled ones, is looked up at the API server before the apply that would create it: an
// apply of a name that someone else's ConfigMap holds would write into theirs.
func TestReconcileLooksPastTheCacheBeforeItCreates(t *testing.T) {
	theirs := &corev1.ConfigMap{Data: map[string]string{demov1alpha1.MessageKey: "theirs"}}
	theirs.Name, theirs.Namespace = "greeting-config", "team-a"
	for _, tc := range []struct {
		name   string
		exists []client.Object
		writes []string
	}{
		{"none there: created", nil, []string{"apply ConfigMap", "apply Sample/status"}},
		{"someone else's there: left alone", []client.Object{theirs}, []string{"apply Sample/status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, append(tc.exists, newSample("greeting", "hello world"))...)
			reader := &countingReader{Reader: api}
			r := &SampleReconciler{Client: cacheBlind{api}, APIReader: reader, Recorder: api.events}

			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}); err != nil {
				t.Fatalf("reconcile: %v", err)
			}
			wantWrites(t, api, tc.writes...)
			if reader.reads != 1 {
				t.Errorf("%d reads past the cache, want 1: the one that finds whether the name is free", reader.reads)
			}
		})
	}
}

func TestReconcileRestoresTheLabelTheCacheSelectsOn(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	api.converged(t)
	cm := api.configMap(t)
	delete(cm.Labels, ManagedByLabel)
	if err := api.Client.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	reader := &countingReader{Reader: api}
	api.writes = nil
	r := &SampleReconciler{Client: cacheBlind{api}, APIReader: reader, Recorder: api.events}

	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "apply ConfigMap")
	if reader.reads != 1 {
		t.Errorf("%d reads past the cache; want 1, for the ConfigMap the cache no longer holds", reader.reads)
	}
	if got := api.configMap(t).Labels[ManagedByLabel]; got != ManagedByValue {
		t.Errorf("managed-by label = %q, want it restored", got)
	}
}

// TestAnUpdateNamesTheConfigMapsUID: an apply that updates the ConfigMap names the uid of the one
// read, so that the API server refuses it should the name now be held by another; an apply that
// creates it names none, which the API server would refuse.
func TestAnUpdateNamesTheConfigMapsUID(t *testing.T) {
	sample := newSample("greeting", "hello world")
	ours := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "greeting-config", Namespace: "team-a", UID: "uid-of-the-one-read",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sample, demov1beta1.GroupVersion.WithKind("Sample"))}},
		Data: map[string]string{demov1alpha1.MessageKey: "drifted"},
	}
	for _, tc := range []struct {
		name   string
		exists []client.Object
		want   types.UID
	}{
		{"creating it: none", nil, ""},
		{"updating it: the uid of the one read", []client.Object{ours}, ours.UID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, append(tc.exists, sample.DeepCopy())...)
			if _, err := api.reconcile(t); err != nil {
				t.Fatalf("reconcile: %v", err)
			}
			if !slices.Equal(api.uids, []types.UID{tc.want}) {
				t.Errorf("the applies of the ConfigMap name uids %q, want one naming %q", api.uids, tc.want)
			}
		})
	}
}

// TestAKeyRemovedFromSpecLeavesTheConfigMap: the operator applies the whole of what it wants, so a
// key it applied before and no longer wants is removed by the API server; a key someone else
// wrote stays, being theirs.
func TestAKeyRemovedFromSpecLeavesTheConfigMap(t *testing.T) {
	api := newFakeAPI(t, newSampleData("greeting", map[string]string{"message": "hello world", "colour": "blue"}))
	api.converged(t)
	cm := api.configMap(t)
	cm.Data["extra"] = "someone else's"
	if err := api.Client.Update(context.Background(), cm, client.FieldOwner("someone")); err != nil {
		t.Fatal(err)
	}
	api.changeSpec(t, func(spec *demov1beta1.SampleSpec) { delete(spec.Data, "colour") })

	api.converged(t)
	if diff := cmp.Diff(map[string]string{"message": "hello world", "extra": "someone else's"}, api.configMap(t).Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

// TestAConfigMapThePreviousReleaseWroteIsHandedOverInOnePatch: the fields that the release before
// server-side apply wrote (PreviousFieldManager's) pass to FieldOwner in one patch, after which
// the operator owns them alone, rests, and removes a key it no longer wants; a ConfigMap of its
// own costs no such patch.
func TestAConfigMapThePreviousReleaseWroteIsHandedOverInOnePatch(t *testing.T) {
	api := newFakeAPI(t, newSampleData("greeting", map[string]string{"message": "hello world", "colour": "blue"}))
	writtenByThePreviousRelease(api, t)

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "patch ConfigMap", "apply Sample/status")
	if owners := managers(api.configMap(t).ManagedFields); !slices.Equal(owners, []string{FieldOwner + " Apply"}) {
		t.Errorf("the ConfigMap's field managers: %q, want the operator's apply alone", owners)
	}
	api.converged(t)
	wantWrites(t, api)

	api.changeSpec(t, func(spec *demov1beta1.SampleSpec) { delete(spec.Data, "colour") })
	api.converged(t)
	if diff := cmp.Diff(map[string]string{"message": "hello world"}, api.configMap(t).Data); diff != "" {
		t.Errorf("data once colour left spec.data (-want +got):\n%s", diff)
	}
}

// TestAHandoverThatCannotReadTheManagedFieldsIsReturned: a ConfigMap whose managedFields the
// handover cannot read, as the cache holds it, is neither patched nor applied, and the pass fails
// naming it. (The API server refuses such managedFields: only a reader can garble them.)
func TestAHandoverThatCannotReadTheManagedFieldsIsReturned(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	writtenByThePreviousRelease(api, t)
	garbled := garbledFields{api}
	api.writes = nil
	r := &SampleReconciler{Client: garbled, APIReader: garbled, Recorder: api.events}
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}})
	if err == nil || !strings.Contains(err.Error(), "hand ConfigMap team-a/greeting-config of Sample greeting over to operator-demo") {
		t.Errorf("Reconcile returned %v, want the handover's error, naming the ConfigMap", err)
	}
	if slices.ContainsFunc(api.writes, func(w string) bool { return strings.HasSuffix(w, "ConfigMap") }) {
		t.Errorf("writes = %q, want none of the ConfigMap", api.writes)
	}
}

// garbledFields reads as the fake API server does, but a ConfigMap's managedFields as no field
// set.
type garbledFields struct{ client.Client }

func (g garbledFields) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := g.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		for i := range cm.ManagedFields {
			cm.ManagedFields[i].FieldsV1 = metav1.NewFieldsV1("not a field set")
		}
	}
	return nil
}

// TestAKeyAnotherManagerNamedManagerWritesLaterStays: once the operator has applied a ConfigMap,
// a client that happens to be named like the release before (every kubebuilder binary is
// "manager") is someone else: the key it adds is not handed over, and stays.
func TestAKeyAnotherManagerNamedManagerWritesLaterStays(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	api.converged(t)
	cm := api.configMap(t)
	cm.Data["theirs"] = "another operator's"
	if err := api.Client.Update(context.Background(), cm, client.FieldOwner(PreviousFieldManager)); err != nil {
		t.Fatal(err)
	}

	api.converged(t)
	if diff := cmp.Diff(map[string]string{demov1alpha1.MessageKey: "hello world", "theirs": "another operator's"}, api.configMap(t).Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	wantWrites(t, api)
}

// TestTheHandoverLooksForTheOperatorsOwnApply: a ConfigMap that the release before wrote and that
// another client has applied to since (kubectl apply --server-side) is still handed over, in one
// patch: what tells the handover that it is done is the operator's own apply, not anyone's.
func TestTheHandoverLooksForTheOperatorsOwnApply(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	writtenByThePreviousRelease(api, t)
	theirs := corev1ac.ConfigMap("greeting-config", "team-a").WithData(map[string]string{"theirs": "kubectl's"})
	if err := api.Client.Apply(context.Background(), theirs, client.FieldOwner("kubectl")); err != nil {
		t.Fatal(err)
	}

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "patch ConfigMap", "apply Sample/status")
	if owners := managers(api.configMap(t).ManagedFields); !slices.Equal(owners, []string{"kubectl Apply", FieldOwner + " Apply"}) {
		t.Errorf("the ConfigMap's field managers: %q, want kubectl's apply and the operator's", owners)
	}
}

// managers names each entry of managed as "<manager> <operation>", sorted.
func managers(managed []metav1.ManagedFieldsEntry) []string {
	names := make([]string, 0, len(managed))
	for _, entry := range managed {
		names = append(names, entry.Manager+" "+string(entry.Operation))
	}
	slices.Sort(names)
	return names
}
