package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestManagerPatch: the patch gives the manager container exactly the args and the limit, as the
// strategic merge patch of a Deployment's template.
func TestManagerPatch(t *testing.T) {
	args := []string{"--metrics-bind-address=:8443", "--leader-elect", "--health-probe-bind-address=:8081", `--odd="quoted" \ arg`}
	want := `{"spec":{"template":{"spec":{"containers":[{"name":"manager","args":["--metrics-bind-address=:8443","--leader-elect","--health-probe-bind-address=:8081","--odd=\"quoted\" \\ arg"],"resources":{"limits":{"memory":"256Mi"}}}]}}}}`
	if got := string(managerPatch(args, "256Mi")); got != want {
		t.Errorf("managerPatch:\n got %s\nwant %s", got, want)
	}
	var patch struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name      string
						Args      []string
						Resources struct{ Limits map[string]string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(managerPatch(nil, "1Gi"), &patch); err != nil {
		t.Fatal(err)
	}
	if c := patch.Spec.Template.Spec.Containers; len(c) != 1 || c[0].Name != "manager" || c[0].Args != nil || c[0].Resources.Limits["memory"] != "1Gi" {
		t.Errorf("managerPatch(nil, 1Gi) = %+v", c)
	}
}

func TestParseCounts(t *testing.T) {
	for in, want := range map[string][]int{"1000,5000,10000,20000": {1000, 5000, 10000, 20000}, "20000": {20000}, " 5000, 10000 ": {5000, 10000}} {
		if got, err := parseCounts(in); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseCounts(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1000,", "1000,x", "1e3", "1000;5000"} {
		if got, err := parseCounts(in); err == nil {
			t.Errorf("parseCounts(%q) = %v, want an error", in, got)
		}
	}
}

// TestCgroupMemory reads a container's memory cgroup as v1 and v2 lay it out.
func TestCgroupMemory(t *testing.T) {
	write := func(dir string, files map[string]string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	root := t.TempDir()
	for _, c := range []struct {
		name, dir               string
		files                   map[string]string
		usage, workingSet, peak float64 // what it reads
	}{
		{"v2", filepath.Join(root, "docker", "node", "pod", "c2"), map[string]string{
			"memory.current": "1000\n", "memory.peak": "1500\n", "cgroup.procs": "42\n43\n",
			"memory.stat": "anon 700\nfile 300\ninactive_file 200\ntotal_inactive_file 99\n",
		}, 1000, 800, 1500},
		{"v1", filepath.Join(root, "memory", "docker", "node", "pod", "c1"), map[string]string{
			"memory.usage_in_bytes": "2000\n", "memory.max_usage_in_bytes": "2500\n", "cgroup.procs": "42\n",
			"memory.stat": "cache 500\ninactive_file 1\ntotal_inactive_file 300\n",
		}, 2000, 1700, 2500},
	} {
		usage, workingSet, peak, pid, err := cgroupMemory(write(c.dir, c.files))
		if err != nil || usage != c.usage || workingSet != c.workingSet || peak != c.peak || pid != 42 {
			t.Errorf("%s: cgroupMemory = %v, %v, %v, %v, %v; want %v, %v, %v, 42", c.name, usage, workingSet, peak, pid, err, c.usage, c.workingSet, c.peak)
		}
	}
	if _, _, _, _, err := cgroupMemory(write(filepath.Join(root, "empty"), map[string]string{"cgroup.procs": "42\n"})); err == nil {
		t.Error("cgroupMemory of a cgroup without memory.stat: no error")
	}
	if _, _, _, _, err := cgroupMemory(write(filepath.Join(root, "noprocs"), map[string]string{"memory.stat": "inactive_file 1\n"})); err == nil {
		t.Error("cgroupMemory of a cgroup without a process: no error")
	}
}
