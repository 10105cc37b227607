package node

import "errors"

// Config is the part of an image's configuration that the Dockerfile's final stage sets.
type Config struct {
	User       string   `json:"User,omitempty"`
	WorkingDir string   `json:"WorkingDir,omitempty"`
	Entrypoint []string `json:"Entrypoint,omitempty"`
	Cmd        []string `json:"Cmd,omitempty"`
	Env        []string `json:"Env,omitempty"`
}

const distrolessStaticNonroot = "gcr.io/distroless/static:nonroot"

var distrolessEnv = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}

// Instruction is one instruction of a stage.
type Instruction struct {
	Keyword, Args string
}

// Stage is one FROM of a Dockerfile and what follows it.
type Stage struct {
	Instructions []Instruction
}

// Copy is a file the final stage copies from the builder.
type Copy struct{ From, To string }

// Dockerfile is what the node reads of a Dockerfile.
type Dockerfile struct {
	Base      string
	GoVersion string
	Builder   Stage
	Copies    []Copy
	Config    Config
}

// ReadDockerfile reads a Dockerfile (not yet).
func ReadDockerfile(text []byte) (Dockerfile, error) { return Dockerfile{}, errors.New("not yet") }

type dockerignore struct{}

func parseDockerignore(text []byte) dockerignore { return dockerignore{} }

func (d dockerignore) excludes(path string) bool { return false }

func (df Dockerfile) writeArchive(path, name string, files map[string]string) error {
	return errors.New("not yet")
}
