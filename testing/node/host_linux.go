package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// What a node changes on this machine beyond its two directories, and puts back: the kernel's
// sysctls (the kubelet sets kernel.panic, kernel.panic_on_oops and vm.overcommit_memory; the Pods'
// network, net.ipv4.ip_forward), the node's address on lo, the Pods' veths, the nftables tables
// and chains of kube-proxy and the kubelet, the cgroups below the kubelet's cgroupRoot, and paths
// the components create whatever they are told (/var/lib/kubelet/device-plugins, the
// /var/log/containers links, libcni's cache, containerd's shim sockets).

// record is the machine as the node found it: what restore puts back, and what clean compares
// with. It is written into runDir before the node changes anything, so that a run that could not
// stop (killed) is cleaned up by the next.
type record struct {
	// Sysctls are the writable keys of /proc/sys and their values.
	Sysctls map[string]string
	// Links are the network interfaces, NFT the nftables tables ("family table") and chains
	// ("family table chain").
	Links, NFT []string
	// Created are the paths that did not exist; Entries, what the directories that did held.
	Created []string
	Entries map[string][]string
	// Controllers are the cgroup v2 controllers the node enabled for the root's children.
	Controllers []string
}

// recordFile is where the record is kept while a node runs.
var recordFile = filepath.Join(runDir, "host.json")

// outside are the paths the components create outside the node's directories.
var outside = []string{"/var/lib/kubelet", "/var/log/containers", "/var/lib/cni", "/run/containerd", "/usr/libexec/kubernetes"}

// volatileSysctls change by themselves.
var volatileSysctls = []string{"kernel/ns_last_pid", "kernel/random/"}

func takeRecord() (*record, error) {
	r := &record{Entries: map[string][]string{}}
	var err error
	if r.Sysctls, err = sysctls(); err != nil {
		return nil, err
	}
	if r.Links, err = links(); err != nil {
		return nil, err
	}
	if r.NFT, err = nftObjects(); err != nil {
		return nil, err
	}
	for _, p := range outside {
		entries, err := os.ReadDir(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.Created = append(r.Created, p)
		case err == nil:
			for _, e := range entries {
				r.Entries[p] = append(r.Entries[p], e.Name())
			}
		}
	}
	return r, nil
}

func (r *record) save() error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(recordFile, b, 0o600)
}

// savedRecord is the record of a node that did not stop, or nil.
func savedRecord() (*record, error) {
	b, err := os.ReadFile(recordFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &record{}
	return r, json.Unmarshal(b, r)
}

// sysctls are the writable keys of /proc/sys (less those that change by themselves) and their values.
func sysctls() (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir("/proc/sys", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // a directory it cannot read has no key to record
		}
		key := strings.TrimPrefix(p, "/proc/sys/")
		info, err := d.Info()
		if err != nil || info.Mode().Perm()&0o600 != 0o600 || slices.ContainsFunc(volatileSysctls, func(v string) bool { return strings.HasPrefix(key, v) }) {
			return nil // gone meanwhile, or not both readable and writable
		}
		if value, err := os.ReadFile(p); err == nil {
			out[key] = strings.TrimSpace(string(value))
		}
		return nil
	})
	return out, err
}

func links() ([]string, error) {
	ifaces, err := net.Interfaces()
	names := make([]string, 0, len(ifaces))
	for _, i := range ifaces {
		names = append(names, i.Name)
	}
	return names, err
}

// nftObjects are the nftables tables ("family table") and chains ("family table chain").
func nftObjects() ([]string, error) {
	var ruleset struct {
		Nftables []struct {
			Table *struct{ Family, Name string }
			Chain *struct{ Family, Table, Name string }
		}
	}
	out, err := exec.Command("nft", "-j", "list", "ruleset").Output()
	if err != nil {
		return nil, fmt.Errorf("nft -j list ruleset: %w", err)
	}
	if err := json.Unmarshal(out, &ruleset); err != nil {
		return nil, fmt.Errorf("nft -j list ruleset: %w", err)
	}
	var objects []string
	for _, o := range ruleset.Nftables {
		switch {
		case o.Table != nil:
			objects = append(objects, o.Table.Family+" "+o.Table.Name)
		case o.Chain != nil:
			objects = append(objects, o.Chain.Family+" "+o.Chain.Table+" "+o.Chain.Name)
		}
	}
	return objects, nil
}

// restore puts the machine back as r found it. It runs after the node's processes have stopped;
// it kills what is left of them, and goes on past what it cannot undo, to return it all.
func (r *record) restore() error {
	var errs []error
	killLeftovers()
	errs = append(errs, unmountUnder(stateDir, runDir))
	now, err := links()
	errs = append(errs, err)
	for _, l := range now {
		// A Pod's veth goes by itself once its peer's network namespace is gone.
		if _, err := net.InterfaceByName(l); err == nil && !slices.Contains(r.Links, l) {
			if err := run("ip", "link", "del", l); err != nil && !strings.Contains(err.Error(), "Cannot find device") {
				errs = append(errs, err)
			}
		}
	}
	if addressed() {
		errs = append(errs, run("ip", "addr", "del", nodeIP+"/32", "dev", "lo"))
	}
	errs = append(errs, r.restoreNFT(), r.removeCgroups(), r.restoreSysctls())
	for _, p := range r.Created {
		errs = append(errs, os.RemoveAll(p))
	}
	for dir, before := range r.Entries {
		errs = append(errs, removeNew(dir, before))
	}
	errs = append(errs, os.RemoveAll(stateDir))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// The record goes last: a restore that failed is tried again by the next node.
	return os.RemoveAll(runDir)
}

// addressed says whether lo carries the node's address.
func addressed() bool {
	addrs, err := net.InterfaceByName("lo")
	if err != nil {
		return false
	}
	list, err := addrs.Addrs()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(list, func(a net.Addr) bool { return strings.HasPrefix(a.String(), nodeIP+"/") })
}

// killLeftovers kills, with SIGKILL, the containerd shims of the node's containerd and every
// process left in the kubelet's cgroups (a Pod's, when its shim is gone).
func killLeftovers() {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range cmdlines {
		b, err := os.ReadFile(c)
		if err == nil && strings.Contains(string(b), containerdSocket) {
			kill(filepath.Base(filepath.Dir(c)))
		}
	}
	for _, dir := range cgroupDirs() {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "cgroup.procs" {
				b, _ := os.ReadFile(p)
				for _, pid := range strings.Fields(string(b)) {
					kill(pid)
				}
			}
			return nil
		})
	}
	time.Sleep(200 * time.Millisecond) // for the killed to exit before their mounts and cgroups go
}

func kill(pid string) {
	if n, err := strconv.Atoi(pid); err == nil {
		_ = syscall.Kill(n, syscall.SIGKILL)
	}
}

// mountsUnder are the mount points below the directories, deepest first.
func mountsUnder(dirs ...string) []string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	var mounts []string
	for line := range strings.SplitSeq(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 4 && slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(fields[4], d+"/") }) {
			mounts = append(mounts, fields[4])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(mounts)))
	return mounts
}

// unmountUnder unmounts every mount below the directories (the Pods' volumes, netns bind mounts,
// the containers' root file systems), deepest first.
func unmountUnder(dirs ...string) error {
	mounts := mountsUnder(dirs...)
	var errs []error
	for _, m := range mounts {
		if err := syscall.Unmount(m, 0); err != nil {
			if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
				errs = append(errs, fmt.Errorf("unmount %s: %w", m, err))
			}
		}
	}
	return errors.Join(errs...)
}

// restoreNFT deletes the tables the node created, then, in the tables that were there, the rules
// that jump to chains it created, and those chains.
func (r *record) restoreNFT() error {
	now, err := nftObjects()
	if err != nil {
		return err
	}
	var errs []error
	var chains [][]string
	for _, o := range now {
		if slices.Contains(r.NFT, o) {
			continue
		}
		f := strings.Fields(o)
		if len(f) == 2 {
			errs = append(errs, run("nft", "delete", "table", f[0], f[1]))
		} else if slices.Contains(r.NFT, f[0]+" "+f[1]) {
			chains = append(chains, f)
		}
	}
	if len(chains) == 0 {
		return errors.Join(errs...)
	}
	errs = append(errs, deleteJumpsTo(chains))
	for _, c := range chains {
		errs = append(errs, run("nft", "flush", "chain", c[0], c[1], c[2]))
	}
	for _, c := range chains {
		errs = append(errs, run("nft", "delete", "chain", c[0], c[1], c[2]))
	}
	return errors.Join(errs...)
}

// deleteJumpsTo deletes the rules that jump or go to the chains (family, table, name).
func deleteJumpsTo(chains [][]string) error {
	var ruleset struct {
		Nftables []struct {
			Rule *struct {
				Family, Table, Chain string
				Handle               int
				Expr                 []map[string]struct{ Target string }
			}
		}
	}
	out, err := exec.Command("nft", "-j", "list", "ruleset").Output()
	if err != nil {
		return fmt.Errorf("nft -j list ruleset: %w", err)
	}
	if err := json.Unmarshal(out, &ruleset); err != nil {
		return err
	}
	var errs []error
	for _, o := range ruleset.Nftables {
		if o.Rule == nil {
			continue
		}
		for _, e := range o.Rule.Expr {
			for _, verdict := range []string{"jump", "goto"} {
				target := e[verdict].Target
				if target != "" && slices.ContainsFunc(chains, func(c []string) bool {
					return c[0] == o.Rule.Family && c[1] == o.Rule.Table && c[2] == target
				}) {
					errs = append(errs, run("nft", "delete", "rule", o.Rule.Family, o.Rule.Table, o.Rule.Chain, "handle", strconv.Itoa(o.Rule.Handle)))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// removeCgroups removes the cgroups below the kubelet's cgroupRoot, deepest first, then turns off
// the cgroup v2 controllers the node turned on.
func (r *record) removeCgroups() error {
	var errs []error
	for _, root := range cgroupDirs() {
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			// A cgroup whose last process has just been killed may be busy for a moment.
			var err error
			for range 50 {
				if err = syscall.Rmdir(d); err == nil || errors.Is(err, syscall.ENOENT) {
					err = nil
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("remove cgroup %s: %w", d, err))
			}
		}
	}
	for _, c := range r.Controllers {
		if err := os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("-"+c), 0o644); err != nil && !errors.Is(err, syscall.EBUSY) {
			errs = append(errs, fmt.Errorf("turn cgroup controller %s off again: %w", c, err))
		}
	}
	return errors.Join(errs...)
}

// cgroupDirs are the kubelet's cgroupRoot in every cgroup hierarchy where it exists.
func cgroupDirs() []string {
	dirs, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", cgroupRoot))
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", cgroupRoot)); err == nil {
		dirs = append(dirs, filepath.Join("/sys/fs/cgroup", cgroupRoot))
	}
	return dirs
}

// restoreSysctls writes back every sysctl that differs from the record: net.ipv4.ip_forward
// first, which resets each interface's forwarding when written.
func (r *record) restoreSysctls() error {
	now, err := sysctls()
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(now))
	for k, v := range now {
		if old, ok := r.Sysctls[k]; ok && old != v {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i] == "net/ipv4/ip_forward" || (keys[j] != "net/ipv4/ip_forward" && keys[i] < keys[j])
	})
	var errs []error
	for _, k := range keys {
		if err := os.WriteFile("/proc/sys/"+k, []byte(r.Sysctls[k]), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restore sysctl %s to %q: %w", k, r.Sysctls[k], err))
		}
	}
	return errors.Join(errs...)
}

// removeNew removes what dir holds that it did not hold before: the node's files in a directory
// that others use too. A socket in it is removed only if nothing listens on it.
func removeNew(dir string, before []string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // gone: nothing to remove
	}
	var errs []error
	for _, e := range entries {
		if slices.Contains(before, e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && filepath.Base(dir) == "containerd" && e.Name() == "s" {
			removeDeadSockets(p)
			continue
		}
		errs = append(errs, os.RemoveAll(p))
	}
	return errors.Join(errs...)
}

// removeDeadSockets removes the sockets of dir that nothing listens on: the shims' of the node's
// containerd, in the directory that a containerd already on this machine (Docker's) uses too.
func removeDeadSockets(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if conn, err := net.DialTimeout("unix", p, 100*time.Millisecond); err == nil {
			_ = conn.Close()
			continue
		}
		_ = os.Remove(p)
	}
}

// clean compares the machine with the record and says what the node left.
func (r *record) clean() error {
	left := leftProcesses()
	if len(cgroupDirs()) > 0 {
		left = append(left, fmt.Sprintf("cgroups %v", cgroupDirs()))
	}
	for _, m := range mountsUnder(stateDir, runDir) {
		left = append(left, "mount "+m)
	}
	left = append(left, r.leftNetwork()...)
	values, _ := sysctls()
	for k, v := range values {
		if old, ok := r.Sysctls[k]; ok && old != v {
			left = append(left, fmt.Sprintf("sysctl %s = %s (was %s)", k, v, old))
		}
	}
	for _, p := range append([]string{stateDir, runDir}, r.Created...) {
		if _, err := os.Lstat(p); err == nil {
			left = append(left, "path "+p)
		}
	}
	if len(left) > 0 {
		sort.Strings(left)
		return fmt.Errorf("the node left on this machine: %s", strings.Join(left, "; "))
	}
	return nil
}

// leftProcesses are the processes that name the node's state or its containerd's socket.
func leftProcesses() []string {
	var left []string
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range cmdlines {
		if b, err := os.ReadFile(c); err == nil && (strings.Contains(string(b), stateDir) || strings.Contains(string(b), containerdSocket)) {
			left = append(left, "process "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return left
}

// leftNetwork is what the node left of its network: its address, interfaces, nftables objects.
func (r *record) leftNetwork() []string {
	var left []string
	if addressed() {
		left = append(left, "the address "+nodeIP+" on lo")
	}
	now, _ := links()
	for _, l := range now {
		if !slices.Contains(r.Links, l) {
			left = append(left, "network interface "+l)
		}
	}
	objects, _ := nftObjects()
	for _, o := range objects {
		if !slices.Contains(r.NFT, o) {
			left = append(left, "nftables "+o)
		}
	}
	return left
}

// run runs a command, its output in its error.
func run(name string, args ...string) error {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
