package node

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const kubebuilderDockerfile = `# Build the manager binary
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH

WORKDIR /workspace
COPY go.mod go.sum ./
RUN go mod download

COPY cmd/ cmd/
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w" -o manager ./cmd

FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]
`

func TestReadDockerfileTakesTheFinalStagesConfigAndTheBuildersCommands(t *testing.T) {
	df, err := ReadDockerfile([]byte(kubebuilderDockerfile))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{User: "65532:65532", WorkingDir: "/", Entrypoint: []string{"/manager"}, Env: distrolessEnv}
	if !reflect.DeepEqual(df.Config, want) {
		t.Errorf("config = %+v, want %+v", df.Config, want)
	}
	if df.Base != distrolessStaticNonroot {
		t.Errorf("base = %q, want distroless/static:nonroot", df.Base)
	}
	var runs []string
	for _, in := range df.Builder.Instructions {
		if in.Keyword == "RUN" {
			runs = append(runs, in.Args)
		}
	}
	wantRuns := []string{
		"go mod download",
		`CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -ldflags="-s -w" -o manager ./cmd`,
	}
	if !reflect.DeepEqual(runs, wantRuns) {
		t.Errorf("the builder's RUN lines = %q, want %q", runs, wantRuns)
	}
	if df.GoVersion != "1.26" {
		t.Errorf("the builder's Go = %q, want 1.26 (FROM golang:1.26)", df.GoVersion)
	}
	if got := df.Copies; !reflect.DeepEqual(got, []Copy{{From: "/workspace/manager", To: "/manager"}}) {
		t.Errorf("the final stage's copies = %+v, want /workspace/manager to /manager", got)
	}
}

// The repository's own Dockerfile is one the node can build: a change to it that the node could
// not follow fails here, not on the first pull request's kind job.
func TestTheRepositorysDockerfileIsOneTheNodeBuilds(t *testing.T) {
	text, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df, err := ReadDockerfile(text)
	if err != nil {
		t.Fatal(err)
	}
	if df.Config.User != "65532:65532" || !reflect.DeepEqual(df.Config.Entrypoint, []string{"/manager"}) {
		t.Errorf("config = %+v, want USER 65532:65532 and ENTRYPOINT [\"/manager\"]", df.Config)
	}
}

func TestReadDockerfileRefusesWhatTheNodeCannotBuild(t *testing.T) {
	for name, tc := range map[string]struct{ from, to, want string }{
		"a RUN in the final stage":        {"USER 65532:65532", "RUN echo hi\nUSER 65532:65532", "RUN in the final stage"},
		"a builder RUN that is not go":    {"RUN go mod download", "RUN apt-get install -y git", `only go commands: "apt-get install -y git"`},
		"another base":                    {"FROM gcr.io/distroless/static:nonroot", "FROM alpine:3", `FROM alpine:3`},
		"an instruction it does not know": {"USER 65532:65532", "USER 65532:65532\nHEALTHCHECK CMD /manager", "HEALTHCHECK"},
		"a shell-form ENTRYPOINT":         {`ENTRYPOINT ["/manager"]`, "ENTRYPOINT /manager", "exec form"},
		"a builder not golang":            {"FROM golang:1.26 AS builder", "FROM debian:12 AS builder", "FROM debian:12"},
	} {
		t.Run(name, func(t *testing.T) {
			text := strings.Replace(kubebuilderDockerfile, tc.from, tc.to, 1)
			if _, err := ReadDockerfile([]byte(text)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one that says %q", err, tc.want)
			}
		})
	}
}

func TestDockerignoreExcludesAsDockerDoes(t *testing.T) {
	ignore := parseDockerignore([]byte("# what the Dockerfile copies\n*\n!go.mod\n!api/\n**/*_test.go\n"))
	for path, excluded := range map[string]bool{
		"go.mod":               false,
		"go.sum":               true,
		"api/v1/types.go":      false,
		"api/v1/types_test.go": true,
		"controllers/x.go":     true,
		"README.md":            true,
	} {
		if got := ignore.excludes(path); got != excluded {
			t.Errorf("excludes(%q) = %v, want %v", path, got, excluded)
		}
	}
}

func TestWriteArchiveIsADockerArchiveWithNoShell(t *testing.T) {
	dir := t.TempDir()
	// Debian's ca-certificates, whatever this machine has.
	system := caBundle
	t.Cleanup(func() { caBundle = system })
	caBundle = filepath.Join(dir, "ca-certificates.crt")
	if err := os.WriteFile(caBundle, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manager := filepath.Join(dir, "manager")
	if err := os.WriteFile(manager, []byte("\x7fELF..."), 0o755); err != nil {
		t.Fatal(err)
	}
	df, err := ReadDockerfile([]byte(kubebuilderDockerfile))
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "image.tar")
	if err := df.writeArchive(archive, "docker.io/library/operator-demo:dev", map[string]string{"/workspace/manager": manager}); err != nil {
		t.Fatal(err)
	}
	tags, config, rootfs := readArchive(t, archive)
	if !reflect.DeepEqual(tags, []string{"docker.io/library/operator-demo:dev"}) {
		t.Errorf("RepoTags = %q", tags)
	}
	if !reflect.DeepEqual(config.Config, df.Config) || config.OS != "linux" {
		t.Errorf("image config = %+v (%s), want %+v (linux)", config.Config, config.OS, df.Config)
	}
	if f, ok := rootfs["manager"]; !ok || f.mode != 0o755 || string(f.data) != "\x7fELF..." {
		t.Errorf("/manager in the layer: %+v, want the binary, mode 0755", f)
	}
	if !strings.Contains(string(rootfs["etc/passwd"].data), "nonroot:x:65532:65532") {
		t.Errorf("/etc/passwd = %q, want distroless's nonroot user", rootfs["etc/passwd"].data)
	}
	for _, shell := range []string{"bin/sh", "bin/bash", "bin/busybox"} {
		if _, ok := rootfs[shell]; ok {
			t.Errorf("the image has /%s", shell)
		}
	}
}

// imageConfig is what the test reads of an image's configuration.
type imageConfig struct {
	Config Config `json:"config"`
	OS     string `json:"os"`
}

// readArchive reads a docker-archive of one image with one layer: its tags, its configuration
// and its layer's files.
func readArchive(t *testing.T, archive string) ([]string, imageConfig, map[string]tarFile) {
	t.Helper()
	files := untar(t, archive)
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(files["manifest.json"].data, &manifest); err != nil {
		t.Fatal(err)
	}
	if len(manifest) != 1 || len(manifest[0].Layers) != 1 {
		t.Fatalf("manifest.json = %s", files["manifest.json"].data)
	}
	var config imageConfig
	if err := json.Unmarshal(files[manifest[0].Config].data, &config); err != nil {
		t.Fatal(err)
	}
	return manifest[0].RepoTags, config, untarBytes(t, files[manifest[0].Layers[0]].data)
}

type tarFile struct {
	mode int64
	data []byte
}

func untar(t *testing.T, path string) map[string]tarFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return untarBytes(t, b)
}

func untarBytes(t *testing.T, b []byte) map[string]tarFile {
	t.Helper()
	out := map[string]tarFile{}
	r := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(h.Name, "/")] = tarFile{mode: h.Mode, data: data}
	}
}

func TestReferenceIsTheNameContainerdKnowsAnImageBy(t *testing.T) {
	for image, want := range map[string]string{
		"operator-demo:dev":           "docker.io/library/operator-demo:dev",
		"example/operator:v1":         "docker.io/example/operator:v1",
		"ghcr.io/example/operator:v1": "ghcr.io/example/operator:v1",
		"localhost:5000/operator:v1":  "localhost:5000/operator:v1",
		"operator-demo":               "docker.io/library/operator-demo:latest",
	} {
		if got := Reference(image); got != want {
			t.Errorf("Reference(%q) = %q, want %q", image, got, want)
		}
	}
}
