package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// TestAnEventuallyWithTheSpecsContextStillTimesOut: given the spec's context, which has no
// deadline of its own, a failing Eventually fails after the default timeout instead of waiting
// for the suite's.
func TestAnEventuallyWithTheSpecsContextStillTimesOut(t *testing.T) {
	RegisterTestingT(t)
	SetDefaults()
	t.Cleanup(func() { SetDefaultEventuallyTimeout(Converge) })
	SetDefaultEventuallyTimeout(200 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	started := time.Now()
	failure := InterceptGomegaFailure(func() {
		Eventually(ctx, func() error { return errors.New("never") }).Should(Succeed())
	})
	if failure == nil {
		t.Fatal("an Eventually that never succeeds did not fail")
	}
	if took := time.Since(started); took > 2*time.Second {
		t.Errorf("it failed after %s: the default timeout does not apply with a context", took)
	}
}

// TestSetDefaultsMakesTheSuitesWaits: after SetDefaults an Eventually waits past Gomega's own
// second, up to Converge, and a Consistently watches for AtRest, both looking every Poll.
func TestSetDefaultsMakesTheSuitesWaits(t *testing.T) {
	RegisterTestingT(t)
	SetDefaultEventuallyTimeout(time.Second) // Gomega's own, whatever a test before set
	SetDefaults()
	started, polls := time.Now(), 0
	Eventually(func() bool {
		polls++
		return time.Since(started) > 1200*time.Millisecond
	}).Should(BeTrue())
	if most := int(1200*time.Millisecond/Poll) + 3; polls > most {
		t.Errorf("Eventually looked %d times in 1.2 s, want at most %d: every Poll (%s)", polls, most, Poll)
	}
	started, polls = time.Now(), 0
	Consistently(func() int {
		polls++
		return 0
	}).Should(BeZero())
	if took, most := time.Since(started), int(AtRest/Poll)+2; took < AtRest || polls > most {
		t.Errorf("Consistently watched for %s, looking %d times: want AtRest (%s), every Poll (%s)", took, polls, AtRest, Poll)
	}
}

// TestSetDefaultsWritesTheLogToTheSpecsOutput: controller-runtime's log, down to its debug lines,
// goes to GinkgoWriter, which a failed spec shows.
func TestSetDefaultsWritesTheLogToTheSpecsOutput(t *testing.T) {
	SetDefaults()
	var out strings.Builder
	GinkgoWriter.TeeTo(&out)
	t.Cleanup(GinkgoWriter.ClearTeeWriters)
	ctrl.Log.WithName("widget").V(1).Info("reconciled")
	if !strings.Contains(out.String(), "DEBUG\twidget\treconciled") {
		t.Errorf("the log wrote %q to GinkgoWriter, want the debug line", out.String())
	}
}

// TestEveryProcessAttachesToTheSuitesCluster: in a process that did not start the cluster,
// ShareCluster attaches to the cluster that the first process's kubeconfig reaches, and fails, saying why, where there is none; a process that
// holds its cluster keeps it. komega reads the cluster the process holds.
func TestEveryProcessAttachesToTheSuitesCluster(t *testing.T) {
	RegisterTestingT(t)
	config := clientcmdapi.NewConfig()
	config.Clusters["suite"] = &clientcmdapi.Cluster{Server: "https://attached.example:6443"}
	config.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: "token"}
	config.Contexts["suite"] = &clientcmdapi.Context{Cluster: "suite", AuthInfo: "admin"}
	config.CurrentContext = "suite"
	kubeconfig, err := clientcmd.Write(*config)
	if err != nil {
		t.Fatal(err)
	}
	var attached cluster.Cluster
	if err := InterceptGomegaFailure(func() { attach(&attached, kubeconfig, operator.Subject{}) }); err != nil || attached.Client == nil || attached.Config.Host != "https://attached.example:6443" {
		t.Errorf("attached to %+v (failure: %v), want the cluster at https://attached.example:6443", attached.Config, err)
	}
	var none cluster.Cluster
	if err := InterceptGomegaFailure(func() { attach(&none, nil, operator.Subject{}) }); err == nil || !strings.Contains(err.Error(), "run it without -p") {
		t.Errorf("attaching with no kubeconfig failed with %v, want it to say to run without -p", err)
	}
	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "held"}}
	own := cluster.Cluster{Client: fake.NewClientBuilder().WithObjects(held).Build()}
	kept := own
	if err := InterceptGomegaFailure(func() { attach(&kept, kubeconfig, operator.Subject{}) }); err != nil || kept.Config != nil {
		t.Errorf("a process holding its cluster attached to %+v (failure: %v), want it kept", kept.Config, err)
	}
	if err := komega.Get(held.DeepCopy())(); err != nil {
		t.Errorf("komega does not read the process's cluster: %v", err)
	}
}

// TestAClusterThatCannotStartFailsTheSuiteWithWhy: the first process's start of the suite's cluster
// fails with the provider's error.
func TestAClusterThatCannotStartFailsTheSuiteWithWhy(t *testing.T) {
	RegisterTestingT(t)
	var into cluster.Cluster
	err := InterceptGomegaFailure(func() {
		startShared(context.Background(), &into, operator.Subject{}, func(context.Context, operator.Subject) (*cluster.Cluster, []byte, error) {
			return nil, nil, errors.New("no control plane binaries")
		})
	})
	if err == nil || !strings.Contains(err.Error(), "no control plane binaries") {
		t.Errorf("a cluster that cannot start failed the suite with %v, want the provider's error", err)
	}
}

// TestTheFirstProcessKeepsTheClusterItStarted: the process that starts the suite's cluster holds
// it, as its provider returned it, even where the others attach through a kubeconfig: the webhooks
// it serves for every process (Cluster.Webhooks) are its to take down.
func TestTheFirstProcessKeepsTheClusterItStarted(t *testing.T) {
	RegisterTestingT(t)
	served := &cluster.Webhooks{}
	var into cluster.Cluster
	var kubeconfig []byte
	err := InterceptGomegaFailure(func() {
		kubeconfig = startShared(context.Background(), &into, operator.Subject{}, func(context.Context, operator.Subject) (*cluster.Cluster, []byte, error) {
			return &cluster.Cluster{Webhooks: served, Stop: func() error { return nil }}, []byte("the others attach with this"), nil
		})
	})
	if err != nil || into.Webhooks != served || string(kubeconfig) != "the others attach with this" {
		t.Errorf("the first process holds %+v and hands the others %q (failure: %v), want the cluster it started and its kubeconfig", into, kubeconfig, err)
	}
}
