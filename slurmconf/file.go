package slurmconf

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// MaxIncludeDepth is how deeply Include lines may nest.
const MaxIncludeDepth = 16

// ParseFile reads the slurm.conf called name in fsys and every file it
// includes (see the package doc for how include names are resolved). Use
// os.DirFS(dir) to read from disk.
func ParseFile(fsys fs.FS, name string) (*Config, error) {
	b := newBuilder()
	r := includeReader{fsys: fsys}
	err := r.read(name, nil, func(l line) error { return b.line(l) })
	if err != nil {
		return nil, err
	}
	b.cfg.Files = r.files
	return b.cfg, nil
}

// includeReader walks a file and, depth first, the files it includes.
type includeReader struct {
	fsys  fs.FS
	files []string
}

func (r *includeReader) read(name string, stack []string, each func(line) error) error {
	data, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		return &Error{Pos: Pos{File: name}, Msg: "cannot read: " + errText(err)}
	}
	r.files = append(r.files, name)
	lines, err := readLines(strings.NewReader(string(data)), name)
	if err != nil {
		return err
	}
	stack = append(stack, name)
	for _, l := range lines {
		if l.include == "" {
			if err := each(l); err != nil {
				return err
			}
			continue
		}
		targets, err := r.resolve(name, l)
		if err != nil {
			return err
		}
		for _, t := range targets {
			if slices.Contains(stack, t) {
				return errAt(l.pos, l.inclCol, "Include %s: include cycle %s", l.include, strings.Join(append(stack, t), " -> "))
			}
			if len(stack) >= MaxIncludeDepth {
				return errAt(l.pos, l.inclCol, "Include %s: includes nest deeper than %d", l.include, MaxIncludeDepth)
			}
			if err := r.read(t, stack, each); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve maps an Include argument to names in fsys.
func (r *includeReader) resolve(from string, l line) ([]string, error) {
	dir := path.Dir(from)
	target := l.include
	if path.IsAbs(target) {
		target = path.Base(target)
	}
	target = path.Join(dir, target)
	if strings.ContainsAny(target, "*?[") {
		matches, err := fs.Glob(r.fsys, target)
		if err != nil {
			return nil, errAt(l.pos, l.inclCol, "Include %s: %v", l.include, err)
		}
		return matches, nil // an empty glob includes nothing, as in Slurm
	}
	if _, err := fs.Stat(r.fsys, target); err != nil {
		return nil, errAt(l.pos, l.inclCol, "Include %s: cannot read %s: %s", l.include, target, errText(err))
	}
	return []string{target}, nil
}

func errText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
