package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hpcsched/hpcsched/slurmconf"
)

// ReadConfig reads a slurm.conf from disk. Include lines resolve beside
// it, then along includeDirs; a file absent under its own name is also
// looked for as "<site>.<name>" beside the conf, where site is the conf's
// file name up to its first dot — the layout of collections that keep
// several sites' files in one folder (slac_sdf_prod.slurm.conf including
// slac.conf finds slac_sdf_prod.slac.conf).
func ReadConfig(file string, includeDirs ...string) (*slurmconf.Config, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	if err := readable(file, abs); err != nil {
		return nil, err
	}
	base := filepath.Base(abs)
	site, _, _ := strings.Cut(base, ".")
	fsys := &includeFS{dirs: append([]string{filepath.Dir(abs)}, includeDirs...), site: site}
	cfg, err := slurmconf.ParseFile(fsys, base)
	if err != nil {
		return nil, wholePath(err, base, file)
	}
	return cfg, nil
}

// pathError is an error whose text names the file as the caller wrote
// it; errors.Is and errors.As see the error inside.
type pathError struct {
	msg string
	err error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

// wholePath rewrites an error that begins with the file's base name (the
// name the parser was given) to begin with the path as written:
// "/dev/zero: input is longer ...", not "zero: ...".
func wholePath(err error, base, file string) error {
	if rest, ok := strings.CutPrefix(err.Error(), base); ok && file != base && (rest == "" || rest[0] == ':') {
		return &pathError{file + rest, err}
	}
	return err
}

// includeFS opens a name in the first folder that has it, trying the
// site-prefixed name beside the conf too.
type includeFS struct {
	dirs []string
	site string
}

func (f *includeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	tries := make([]string, 0, 2*len(f.dirs))
	for k, d := range f.dirs {
		tries = append(tries, filepath.Join(d, filepath.FromSlash(name)))
		if k == 0 && f.site != "" {
			tries = append(tries, filepath.Join(d, f.site+"."+path.Base(name)))
		}
	}
	for _, p := range tries {
		fh, err := os.Open(p)
		if err == nil {
			return fh, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Glob lets Include globs work across the folders.
func (f *includeFS) Glob(pattern string) ([]string, error) {
	var out []string
	for _, d := range f.dirs {
		m, err := fs.Glob(os.DirFS(d), pattern)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}

// readable says, naming the path as the caller wrote it, why a file
// cannot be read (missing, a directory, no permission).
func readable(file, abs string) error {
	fh, err := os.Open(abs)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("%s: is a directory, not a slurm.conf", file)
	}
	return nil
}
