package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// production are the paths whose files, other than tests, make up the operator: what a spec
// proves something about. The base tree's are laid under the head's specs. The first, api/,
// holds the API's names (types, fields, reasons), which a new spec may need just to compile.
var production = []string{"api", "controllers", "cmd", filepath.Join("config", "crd")}

// isProduction says whether the file at path (relative to the tree) is production code.
func isProduction(path string) bool {
	if strings.HasSuffix(path, "_test.go") {
		return false
	}
	for _, p := range production {
		if path == p || strings.HasPrefix(path, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// trees are the checkouts a run works in, none of them the repository's own work tree.
type trees struct {
	// base and head are the two revisions as committed.
	base, head string
	// mixed is the head with the base's production code: the head's specs against the code
	// that came before them.
	mixed string
	// mixedAPI is mixed with the head's api/: the head's specs, with the names they use, against
	// the base's behaviour. Made only when a spec does not compile against mixed.
	mixedAPI string
}

// checkOut writes the base, the head and mixed under dir.
func checkOut(repo, base, head, dir string) (trees, error) {
	t := trees{base: filepath.Join(dir, "base"), head: filepath.Join(dir, "head"), mixed: filepath.Join(dir, "mixed"), mixedAPI: filepath.Join(dir, "mixed-api")}
	for _, c := range []struct{ rev, into string }{{base, t.base}, {head, t.head}, {head, t.mixed}} {
		if err := materialize(repo, c.rev, c.into); err != nil {
			return t, err
		}
	}
	return t, layProduction(t.base, t.mixed, production...)
}

// checkOutMixedAPI writes mixedAPI: the head with the base's production code but for api/
// (production[0]).
func (t trees) checkOutMixedAPI(repo, head string) error {
	if err := materialize(repo, head, t.mixedAPI); err != nil {
		return err
	}
	return layProduction(t.base, t.mixedAPI, production[1:]...)
}

// materialize writes the files of rev into dir, through `git archive`: no work tree is added, no
// index or ref of the repository changes.
func materialize(repo, rev, dir string) error {
	cmd := exec.Command("git", "archive", "--format=tar", rev)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	archive, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git archive %s: %w: %s", rev, err, stderr.String())
	}
	r := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the archive of %s: %w", rev, err)
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			err = writeFile(path, r, fs.FileMode(h.Mode))
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, path)
		}
		if err != nil {
			return fmt.Errorf("write %s of %s: %w", h.Name, rev, err)
		}
	}
}

func writeFile(path string, content io.Reader, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(f, content)
	return errors.Join(err, f.Close())
}

// layProduction replaces the production code under paths in tree with from's: files only the tree
// has go, files from has come in, and the tree's tests stay as they are.
func layProduction(from, tree string, paths ...string) error {
	for _, root := range []string{tree, from} {
		removing := root == tree
		err := walkProduction(root, paths, func(rel string) error {
			if removing {
				return os.Remove(filepath.Join(tree, rel))
			}
			f, err := os.Open(filepath.Join(from, rel))
			if err != nil {
				return err
			}
			defer func() { _ = f.Close() }()
			info, err := f.Stat()
			if err != nil {
				return err
			}
			return writeFile(filepath.Join(tree, rel), f, info.Mode())
		})
		if err != nil {
			return fmt.Errorf("lay the base's production code into %s: %w", tree, err)
		}
	}
	return nil
}

// walkProduction calls do with the path, relative to root, of every production file under paths.
func walkProduction(root string, paths []string, do func(rel string) error) error {
	for _, p := range paths {
		err := filepath.WalkDir(filepath.Join(root, p), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil || !isProduction(rel) {
				return err
			}
			return do(rel)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
