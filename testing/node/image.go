package node

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// The image is built as the Dockerfile says, without Docker: its builder stage runs on this
// machine (its RUN lines, which may only be go commands, with this machine's Go, which must be the
// builder's), and its final stage becomes a docker-archive of one layer, which `ctr images import`
// takes. The final stage may start FROM gcr.io/distroless/static:nonroot, whose files a static
// binary can touch (passwd, group, nsswitch.conf, os-release, the CA bundle, /tmp, the nonroot
// user's home) and whose configuration are written here, or FROM scratch. An instruction the node
// cannot follow is an error that names it: a Dockerfile the node cannot build does not pass unseen.

// Config is the part of an image's configuration (the OCI image config's "config") that a
// Dockerfile sets.
type Config struct {
	User       string   `json:"User,omitempty"`
	WorkingDir string   `json:"WorkingDir,omitempty"`
	Entrypoint []string `json:"Entrypoint,omitempty"`
	Cmd        []string `json:"Cmd,omitempty"`
	Env        []string `json:"Env,omitempty"`
}

// The instructions the node reads in both stages.
const (
	instructionArg     = "ARG"
	instructionEnv     = "ENV"
	instructionWorkdir = "WORKDIR"
	instructionCopy    = "COPY"
	instructionRun     = "RUN"
)

// The bases the final stage may start from.
const (
	distrolessStaticNonroot = "gcr.io/distroless/static:nonroot"
	scratch                 = "scratch"
)

// distrolessEnv is distroless/static's configured environment.
var distrolessEnv = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}

// Instruction is one instruction of a Dockerfile: its keyword in upper case, its flags
// (--from=builder) and the rest of its line, continuation lines joined.
type Instruction struct {
	Keyword string
	Flags   map[string]string
	Args    string
	Line    int
}

// Stage is the builder stage: FROM golang, what it copies from the build context and the go
// commands it runs.
type Stage struct {
	Name         string
	Instructions []Instruction
}

// Copy is a file the final stage copies from the builder stage: From in the builder's file
// system, To in the image's.
type Copy struct{ From, To string }

// Dockerfile is what the node reads of a Dockerfile: its builder stage, and its final stage's
// base, files and configuration.
type Dockerfile struct {
	// Base is the final stage's FROM: distrolessStaticNonroot or scratch.
	Base string
	// GoVersion is the builder's Go (FROM golang:1.26: "1.26").
	GoVersion string
	Builder   Stage
	Copies    []Copy
	// Dirs are the directories the final stage's WORKDIRs make.
	Dirs   []string
	Config Config
}

// ReadDockerfile reads a Dockerfile of two stages, a golang builder and a distroless or scratch
// final stage, and refuses any instruction the node cannot follow.
func ReadDockerfile(text []byte) (Dockerfile, error) {
	stages, err := splitStages(text)
	if err != nil {
		return Dockerfile{}, err
	}
	if len(stages) != 2 {
		return Dockerfile{}, fmt.Errorf("the Dockerfile has %d stages: the node builds a builder stage and a final stage", len(stages))
	}
	var df Dockerfile
	if df.Builder, df.GoVersion, err = readBuilder(stages[0]); err != nil {
		return Dockerfile{}, err
	}
	return df, df.readFinal(stages[1])
}

// splitStages cuts a Dockerfile into its stages, each starting with its FROM.
func splitStages(text []byte) ([][]Instruction, error) {
	var stages [][]Instruction
	var joined strings.Builder
	first := 0
	s := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if joined.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if joined.Len() == 0 {
			first = n
		}
		if rest, ok := strings.CutSuffix(line, "\\"); ok {
			joined.WriteString(rest)
			continue
		}
		joined.WriteString(line)
		in := parseInstruction(strings.Join(strings.Fields(joined.String()), " "), first)
		joined.Reset()
		if in.Keyword == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			if in.Keyword != instructionArg {
				return nil, fmt.Errorf("line %d of the Dockerfile: %s before the first FROM", in.Line, in.Keyword)
			}
			continue
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	return stages, s.Err()
}

func parseInstruction(line string, n int) Instruction {
	keyword, rest, _ := strings.Cut(line, " ")
	in := Instruction{Keyword: strings.ToUpper(keyword), Flags: map[string]string{}, Line: n}
	for strings.HasPrefix(rest, "--") {
		var flag string
		flag, rest, _ = strings.Cut(rest, " ")
		name, value, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		in.Flags[name] = value
	}
	in.Args = rest
	return in
}

// golangImage is the builder's base: the official Go image, whose tag starts with the Go version.
var golangImage = regexp.MustCompile(`^golang:(\d+\.\d+)(?:[.-]\S*)?$`)

// assignment is a shell variable assignment before a command (CGO_ENABLED=0).
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func readBuilder(stage []Instruction) (Stage, string, error) {
	from := strings.Fields(stage[0].Args)
	m := golangImage.FindStringSubmatch(from[0])
	if m == nil || len(from) != 3 || !strings.EqualFold(from[1], "AS") {
		return Stage{}, "", fmt.Errorf("line %d of the Dockerfile: FROM %s: the node builds a first stage FROM golang:<version> AS <name>", stage[0].Line, stage[0].Args)
	}
	for _, in := range stage[1:] {
		switch in.Keyword {
		case instructionArg, instructionEnv, instructionWorkdir:
		case instructionCopy:
			if len(in.Flags) > 0 {
				return Stage{}, "", fmt.Errorf("line %d of the Dockerfile: COPY %s: the builder copies from the build context only", in.Line, in.Args)
			}
		case instructionRun:
			if !runsGo(in.Args) {
				return Stage{}, "", fmt.Errorf("line %d of the Dockerfile: the builder stage runs on this machine, and only go commands: %q", in.Line, in.Args)
			}
		default:
			return Stage{}, "", fmt.Errorf("line %d of the Dockerfile: the node cannot build %s in the builder stage", in.Line, in.Keyword)
		}
	}
	return Stage{Name: from[2], Instructions: stage[1:]}, m[1], nil
}

// runsGo says whether a RUN line runs one go command, after any variable assignments.
func runsGo(line string) bool {
	if strings.ContainsAny(line, ";&|`") || strings.Contains(line, "$(") {
		return false
	}
	for _, word := range strings.Fields(line) {
		if !assignment.MatchString(word) {
			return word == "go"
		}
	}
	return false
}

// distrolessImage is gcr.io/distroless/static:nonroot, or one of its Debian-versioned names.
var distrolessImage = regexp.MustCompile(`^gcr\.io/distroless/static(-debian\d+)?:nonroot$`)

// resolve is p, absolute or relative to the directory dir, as an absolute path.
func resolve(dir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}

func (df *Dockerfile) readFinal(stage []Instruction) error {
	if err := df.readBase(stage[0]); err != nil {
		return err
	}
	workdir := "/"
	if df.Config.WorkingDir != "" {
		workdir = df.Config.WorkingDir
	}
	for _, in := range stage[1:] {
		switch in.Keyword {
		case instructionWorkdir:
			workdir = resolve(workdir, in.Args)
			df.Config.WorkingDir = workdir
			if workdir != "/" {
				df.Dirs = append(df.Dirs, workdir)
			}
		case instructionCopy:
			if err := df.readCopy(in, workdir); err != nil {
				return err
			}
		case "USER", instructionEnv, "ENTRYPOINT", "CMD":
			if err := df.readConfig(in); err != nil {
				return err
			}
		case instructionRun:
			return fmt.Errorf("line %d of the Dockerfile: RUN in the final stage: the node cannot run it (the image has no shell)", in.Line)
		default:
			return fmt.Errorf("line %d of the Dockerfile: the node cannot build %s in the final stage", in.Line, in.Keyword)
		}
	}
	return nil
}

// readConfig reads an instruction of the final stage that sets the image's configuration.
func (df *Dockerfile) readConfig(in Instruction) error {
	if in.Keyword == "USER" {
		df.Config.User = in.Args
		return nil
	}
	if in.Keyword == instructionEnv {
		name, value, ok := strings.Cut(in.Args, "=")
		if !ok || strings.ContainsAny(value, ` "'$`) {
			return fmt.Errorf("line %d of the Dockerfile: ENV %s: the node reads ENV NAME=value, one a line", in.Line, in.Args)
		}
		df.Config.Env = append(df.Config.Env, name+"="+value)
		return nil
	}
	var argv []string
	if err := json.Unmarshal([]byte(in.Args), &argv); err != nil {
		return fmt.Errorf("line %d of the Dockerfile: %s %s: the node reads the exec form only (a JSON array: there is no shell to run it)", in.Line, in.Keyword, in.Args)
	}
	if in.Keyword == "CMD" {
		df.Config.Cmd = argv
	} else {
		df.Config.Entrypoint = argv
	}
	return nil
}

// readBase reads the final stage's FROM: distroless/static:nonroot brings its configuration.
func (df *Dockerfile) readBase(from Instruction) error {
	switch base := from.Args; {
	case base == scratch:
		df.Base = scratch
	case distrolessImage.MatchString(base):
		df.Base = distrolessStaticNonroot
		df.Config = Config{User: "65532", WorkingDir: "/home/nonroot", Env: slices.Clone(distrolessEnv)}
	default:
		return fmt.Errorf("line %d of the Dockerfile: FROM %s: the node builds a final stage FROM %s or %s", from.Line, base, distrolessStaticNonroot, scratch)
	}
	return nil
}

// readCopy reads COPY --from=<builder> SRC... DST of the final stage.
func (df *Dockerfile) readCopy(in Instruction, workdir string) error {
	args := strings.Fields(in.Args)
	if in.Flags["from"] != df.Builder.Name || len(in.Flags) != 1 || len(args) < 2 {
		return fmt.Errorf("line %d of the Dockerfile: COPY %s: the final stage copies from --from=%s alone", in.Line, in.Args, df.Builder.Name)
	}
	srcs, dst := args[:len(args)-1], args[len(args)-1]
	toDir := len(srcs) > 1 || dst == "." || strings.HasSuffix(dst, "/")
	dst = resolve(workdir, dst)
	for _, src := range srcs {
		// A source is a path of the builder's file system, from its root.
		src = resolve("/", src)
		to := dst
		if toDir {
			to = path.Join(dst, path.Base(src))
		}
		df.Copies = append(df.Copies, Copy{From: src, To: to})
	}
	return nil
}

// dockerignore is a .dockerignore's patterns, in order: the last one that matches a path (or a
// directory above it) decides, and a pattern starting with ! puts back what earlier ones left out.
type dockerignore []struct {
	re     *regexp.Regexp
	negate bool
}

func parseDockerignore(text []byte) dockerignore {
	var out dockerignore
	for line := range strings.SplitSeq(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		negate := strings.HasPrefix(line, "!")
		pattern := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(line, "!")), "/")
		var re strings.Builder
		for i := 0; i < len(pattern); i++ {
			switch {
			case strings.HasPrefix(pattern[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(pattern[i:], "**"):
				re.WriteString(".*")
				i++
			case pattern[i] == '*':
				re.WriteString("[^/]*")
			case pattern[i] == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			}
		}
		out = append(out, struct {
			re     *regexp.Regexp
			negate bool
		}{regexp.MustCompile("^" + re.String() + "$"), negate})
	}
	return out
}

// excludes says whether the build context leaves out the file at path (slash-separated, relative
// to the context).
func (d dockerignore) excludes(name string) bool {
	excluded := false
	for _, p := range d {
		for dir := name; dir != "."; dir = path.Dir(dir) {
			if p.re.MatchString(dir) {
				excluded = !p.negate
				break
			}
		}
	}
	return excluded
}

// Build runs the builder stage in work, with contextDir as its build context (less what its
// .dockerignore leaves out), then writes the final stage as a docker-archive, named name, to
// archive.
func (df Dockerfile) Build(ctx context.Context, contextDir, work, archive, name string) error {
	if err := df.checkGo(ctx); err != nil {
		return err
	}
	ignore, err := os.ReadFile(filepath.Join(contextDir, ".dockerignore"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	b := builder{context: contextDir, ignore: parseDockerignore(ignore), root: work, workdir: "/",
		env: map[string]string{}}
	for _, in := range df.Builder.Instructions {
		if err := b.do(ctx, in); err != nil {
			return fmt.Errorf("line %d of the Dockerfile, %s %s: %w", in.Line, in.Keyword, in.Args, err)
		}
	}
	files := map[string]string{}
	for _, c := range df.Copies {
		files[c.From] = b.path(c.From)
	}
	return df.writeArchive(archive, name, files)
}

// checkGo fails unless this machine's Go is the builder's.
func (df Dockerfile) checkGo(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return fmt.Errorf("go env GOVERSION: %w", err)
	}
	have := strings.TrimPrefix(strings.TrimSpace(string(out)), "go")
	if have != df.GoVersion && !strings.HasPrefix(have, df.GoVersion+".") {
		return fmt.Errorf("the Dockerfile builds with Go %s (FROM golang:%s), this machine has Go %s", df.GoVersion, df.GoVersion, have)
	}
	return nil
}

// builder runs a builder stage: its file system is the directory root.
type builder struct {
	context, root, workdir string
	ignore                 dockerignore
	env                    map[string]string
}

// path is where the builder's path p (absolute, or relative to its WORKDIR) lies on this machine.
func (b *builder) path(p string) string {
	return filepath.Join(b.root, filepath.FromSlash(resolve(b.workdir, p)))
}

func (b *builder) do(ctx context.Context, in Instruction) error {
	switch in.Keyword {
	case instructionArg:
		name, value, ok := strings.Cut(in.Args, "=")
		if !ok {
			value = platformArgs[name]
		}
		b.env[name] = value
	case instructionEnv:
		name, value, _ := strings.Cut(in.Args, "=")
		b.env[name] = value
	case instructionWorkdir:
		b.workdir = resolve(b.workdir, in.Args)
		return os.MkdirAll(b.path("."), 0o755)
	case instructionCopy:
		return b.copyAll(strings.Fields(in.Args))
	case instructionRun:
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", in.Args)
		cmd.Dir = b.path(".")
		cmd.Env = os.Environ()
		for name, value := range b.env {
			cmd.Env = append(cmd.Env, name+"="+value)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
	}
	return nil
}

// copyAll copies COPY's sources, from the build context, to its destination, the last argument.
func (b *builder) copyAll(args []string) error {
	srcs, dst := args[:len(args)-1], args[len(args)-1]
	for _, src := range srcs {
		to := b.path(dst)
		if len(srcs) > 1 || strings.HasSuffix(dst, "/") || dst == "." {
			if info, err := os.Stat(filepath.Join(b.context, src)); err == nil && !info.IsDir() {
				to = filepath.Join(to, path.Base(src))
			}
		}
		if err := b.copy(path.Clean(src), to); err != nil {
			return err
		}
	}
	return nil
}

// platformArgs are the ARGs that Docker sets for the platform it builds for: this machine's.
var platformArgs = map[string]string{
	"TARGETOS": nodeOS, "TARGETARCH": runtime.GOARCH, "TARGETPLATFORM": nodeOS + "/" + runtime.GOARCH,
	"BUILDOS": nodeOS, "BUILDARCH": runtime.GOARCH, "BUILDPLATFORM": nodeOS + "/" + runtime.GOARCH,
}

// nodeOS is the node's operating system, the image's.
const nodeOS = "linux"

// copy copies src of the build context (a file, or a directory's content) to the path to.
func (b *builder) copy(src, to string) error {
	found := false
	err := filepath.WalkDir(filepath.Join(b.context, src), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(b.context, p)
		if err != nil {
			return err
		}
		if d.IsDir() || b.ignore.excludes(filepath.ToSlash(rel)) {
			return nil
		}
		found = true
		inner, err := filepath.Rel(filepath.Join(b.context, src), p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(to, inner)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err == nil && !found {
		err = fmt.Errorf("%s: not in the build context (or .dockerignore leaves it out)", src)
	}
	return err
}

// file is a file or directory of the image's one layer.
type file struct {
	dir      bool
	mode     int64
	uid, gid int
	data     []byte
}

// writeArchive writes the final stage as a docker-archive named name to archive: the base's
// files, the WORKDIRs, and each Copy, its content read from files[Copy.From].
func (df Dockerfile) writeArchive(archive, name string, files map[string]string) error {
	rootfs := map[string]file{}
	if df.Base == distrolessStaticNonroot {
		if err := distroless(rootfs); err != nil {
			return err
		}
	}
	for _, d := range df.Dirs {
		rootfs[d] = file{dir: true, mode: 0o755}
	}
	for _, c := range df.Copies {
		data, err := os.ReadFile(files[c.From])
		if err != nil {
			return fmt.Errorf("COPY --from=%s %s: %w", df.Builder.Name, c.From, err)
		}
		info, err := os.Stat(files[c.From])
		if err != nil {
			return err
		}
		rootfs[c.To] = file{mode: int64(info.Mode().Perm()), data: data}
	}
	layer, err := tarOf(rootfs)
	if err != nil {
		return err
	}
	layerDigest := sha256.Sum256(layer)
	layerID := hex.EncodeToString(layerDigest[:])
	epoch := time.Unix(0, 0).UTC().Format(time.RFC3339)
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH, "os": nodeOS, "created": epoch, "config": df.Config,
		"rootfs":  map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + layerID}},
		"history": []map[string]string{{"created": epoch, "created_by": "testing/node, from the Dockerfile"}},
	})
	if err != nil {
		return err
	}
	configDigest := sha256.Sum256(config)
	configName := hex.EncodeToString(configDigest[:]) + ".json"
	manifest, err := json.Marshal([]map[string]any{{"Config": configName, "RepoTags": []string{name}, "Layers": []string{layerID + "/layer.tar"}}})
	if err != nil {
		return err
	}
	out, err := tarOf(map[string]file{
		layerID:                {dir: true, mode: 0o755},
		layerID + "/layer.tar": {mode: 0o644, data: layer},
		configName:             {mode: 0o644, data: config},
		"manifest.json":        {mode: 0o644, data: manifest},
	})
	if err != nil {
		return err
	}
	return os.WriteFile(archive, out, 0o644)
}

// caBundle is the CA bundle distroless/static carries, Debian's ca-certificates: this machine's.
var caBundle = "/etc/ssl/certs/ca-certificates.crt"

// distroless adds what gcr.io/distroless/static:nonroot holds that a static binary may touch.
func distroless(rootfs map[string]file) error {
	ca, err := os.ReadFile(caBundle)
	if err != nil {
		return fmt.Errorf("the CA bundle distroless carries, from this machine's ca-certificates: %w", err)
	}
	for name, content := range map[string]string{
		"/etc/passwd": "root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n",
		"/etc/group":                         "root:x:0:\nnobody:x:65534:\ntty:x:5:\nstaff:x:50:\nnonroot:x:65532:\n",
		"/etc/nsswitch.conf":                 "passwd: files\ngroup: files\nhosts: files dns\n",
		"/etc/os-release":                    "PRETTY_NAME=\"Distroless\"\nNAME=\"Debian GNU/Linux\"\nID=\"debian\"\n",
		"/etc/ssl/certs/ca-certificates.crt": string(ca),
	} {
		rootfs[name] = file{mode: 0o644, data: []byte(content)}
	}
	rootfs["/tmp"] = file{dir: true, mode: 0o1777}
	rootfs["/root"] = file{dir: true, mode: 0o700}
	rootfs["/home/nonroot"] = file{dir: true, mode: 0o700, uid: 65532, gid: 65532}
	return nil
}

// tarOf is a reproducible tar of files: sorted, each parent directory listed, mtime 0.
func tarOf(files map[string]file) ([]byte, error) {
	all := map[string]file{}
	for name, f := range files {
		name = strings.TrimPrefix(path.Clean("/"+name), "/")
		all[name] = f
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if _, ok := all[dir]; !ok {
				all[dir] = file{dir: true, mode: 0o755}
			}
		}
	}
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, name := range names {
		f := all[name]
		h := &tar.Header{Name: name, Mode: f.mode, Uid: f.uid, Gid: f.gid, ModTime: time.Unix(0, 0), Format: tar.FormatPAX,
			Typeflag: tar.TypeReg, Size: int64(len(f.data))}
		if f.dir {
			h.Name, h.Typeflag, h.Size = name+"/", tar.TypeDir, 0
		}
		if err := w.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
