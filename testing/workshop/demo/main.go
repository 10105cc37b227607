// Command demo (make demo) replays the article's kubebuilder walkthrough (§10) on a local cluster:
// each step prints its kubectl command, runs it and checks the operator's effect. -keep leaves it running.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/harness/poll"
	"example.com/operator-demo/testing/offline/localcluster"
)

// The walkthrough's Sample, as config/samples/demo_v1alpha1_sample.yaml applies it.
const namespace, name = "default", "sample-sample"

func main() {
	keep := flag.Bool("keep", false, "leave the cluster running after the walkthrough, until Ctrl-C")
	binary := flag.String("operator", "bin/manager", "the operator binary (make build)")
	dir := flag.String("dir", "reports/demo", "where the cluster keeps its kubeconfigs and logs")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir, *binary, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "\ndemo FAILED:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir, binary string, keep bool) (err error) {
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	fmt.Println("Starting a local cluster: etcd, kube-apiserver, kube-controller-manager (garbage collector), the operator")
	started := time.Now()
	d, err := localcluster.StartDeployment(ctx, dir, binary, samples.Operator)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("Stopping the operator and the cluster")
		err = errors.Join(err, d.Stop())
	}()
	fmt.Printf("Ready in %s. Logs and kubeconfigs: %s\n", time.Since(started).Round(100*time.Millisecond), dir)
	// kubectl runs a step's command as a shell would, with the cluster's kubectl and kubeconfig.
	kubectl := func(command string) error {
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+d.AdminKubeconfig, "PATH="+filepath.Dir(d.ControlPlane.KubectlPath)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		fmt.Printf("   %s", out)
		return err
	}
	steps := steps(d.Client)
	for _, s := range steps {
		fmt.Printf("\n== %s\n   $ %s\n", s.title, s.kubectl)
		if err := kubectl(s.kubectl); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
		done, observed := time.Now(), ""
		if err := poll.Until(ctx, 100*time.Millisecond, 15*time.Second, func(ctx context.Context) (err error) {
			observed, err = s.shows(ctx)
			return err
		}); err != nil {
			return fmt.Errorf("%s: %w\n%s", s.title, err, d.Operator.Logs())
		}
		fmt.Printf("   observed after %s: %s\n", time.Since(done).Round(time.Millisecond), observed)
	}
	fmt.Println("\nEvery step behaved.")
	if !keep {
		return nil
	}
	if err := kubectl(steps[0].kubectl); err != nil {
		return err
	}
	fmt.Print("\nThe cluster is yours, with sample-sample applied again. In another shell:\n\n")
	fmt.Printf("   export KUBECONFIG=%s\n   export PATH=%s:$PATH   # kubectl of the cluster's version\n", d.AdminKubeconfig, filepath.Dir(d.ControlPlane.KubectlPath))
	fmt.Printf("   kubectl get samples,configmaps\n   kubectl edit configmap sample-sample-config   # and watch it revert\n")
	fmt.Printf("   METRICS=%s TOKEN=%s   # the operator's metrics, as a metrics-reader\n\n", d.MetricsURL, d.MetricsToken)
	fmt.Printf("Operator log: %s. Ctrl-C stops everything.\n", d.OperatorLog)
	<-ctx.Done()
	return nil
}

// step is a kubectl command, run as printed; shows fails until the cluster shows its effect, then says it.
type step struct {
	title, kubectl string
	shows          func(context.Context) (string, error)
}

// steps are the article's §10, on the Sample default/sample-sample.
func steps(c client.Client) []step {
	cmKey := client.ObjectKey{Namespace: namespace, Name: demov1alpha1.ConfigMapName(name)}
	var uid types.UID // of the ConfigMap last seen synced, to tell a recreated one
	synced := func(message string) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) {
			sample := samples.New(namespace, name, "")
			cm, err := samples.Check(ctx, c, sample)
			if err == nil && sample.Spec.Message != message {
				err = fmt.Errorf("the Sample holds message %q, not %q yet", sample.Spec.Message, message)
			}
			if err != nil {
				return "", err
			}
			uid = cm.UID
			return fmt.Sprintf("ConfigMap %s holds message %q (resourceVersion %s); the Sample is Ready", cm.Name, message, cm.ResourceVersion), nil
		}
	}
	return []step{
		{"Apply a Sample: its ConfigMap is created", "kubectl apply -f config/samples/demo_v1alpha1_sample.yaml", synced("hello world")},
		{"Change spec.message: the ConfigMap follows", `kubectl patch samples.v1alpha1.demo.example.com sample-sample --type merge -p '{"spec":{"message":"updated"}}'`, synced("updated")},
		{"Edit the ConfigMap directly: the operator reverts it", `kubectl patch configmap sample-sample-config --type merge -p '{"data":{"message":"fixed_directly"}}'`, synced("updated")},
		{"Delete the ConfigMap: the operator creates it again", "kubectl delete configmap sample-sample-config", func(ctx context.Context) (string, error) {
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, cmKey, cm); err != nil || cm.UID == uid {
				return "", cmp.Or(err, errors.New("still the deleted ConfigMap"))
			}
			return fmt.Sprintf("ConfigMap %s is back with a new uid %s, message %q", cmKey.Name, cm.UID, cm.Data[demov1alpha1.MessageKey]), nil
		}},
		{"Delete the Sample: the garbage collector deletes its ConfigMap", "kubectl delete sample sample-sample", func(ctx context.Context) (string, error) {
			if err := c.Get(ctx, cmKey, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
				return "", cmp.Or(err, fmt.Errorf("ConfigMap %s is still there", cmKey.Name))
			}
			return fmt.Sprintf("ConfigMap %s is gone with its Sample", cmKey.Name), nil
		}},
	}
}
