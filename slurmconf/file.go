package slurmconf

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// ParseFile reads the slurm.conf called name in fsys and every file it
// includes (see the package doc for how include names are resolved), within
// the Limits the options give. Use os.DirFS(dir) to read from disk.
func ParseFile(fsys fs.FS, name string, opts ...Option) (*Config, error) {
	bud, err := newBudget("ParseFile", fsys, opts)
	if err != nil {
		return nil, err
	}
	b := newBuilder(bud)
	r := includeReader{fsys: fsys, bud: b.bud}
	if err := r.readRoot(name, b.line); err != nil {
		return nil, err
	}
	b.cfg.Files = r.files
	return b.cfg, nil
}

// includeReader walks a file and, depth first, the files it includes,
// counting every file and byte against the budget.
type includeReader struct {
	fsys  fs.FS
	bud   *budget
	files []string
}

func (r *includeReader) readRoot(name string, each func(line) error) error {
	return r.read(name, Pos{File: name}, nil, each)
}

// read reads the file name, which the Include at from named.
func (r *includeReader) read(name string, from Pos, stack []string, each func(line) error) error {
	if r.bud.files >= r.bud.lim.Files {
		return budgetAt(from, "Include %s: more than %d files read (Limits.Files)", name, r.bud.lim.Files)
	}
	r.bud.files++
	f, err := r.fsys.Open(name)
	if err != nil {
		return errAt(Pos{File: name}, "cannot read: %s", errText(err))
	}
	defer f.Close()
	r.files = append(r.files, name)
	stack = append(stack, name)
	return scanLines(newLineScanner(f, r.bud, name), func(l line) error {
		if l.include == "" {
			return each(l)
		}
		return r.include(l, stack, each)
	})
}

func (r *includeReader) include(l line, stack []string, each func(line) error) error {
	targets, err := r.resolve(stack[len(stack)-1], l)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if slices.Contains(stack, t) {
			return errAt(l.inclPos, "Include %s: include cycle %s", l.include, strings.Join(append(slices.Clip(stack), t), " -> "))
		}
		if len(stack) >= MaxIncludeDepth {
			return budgetAt(l.inclPos, "Include %s: includes nest deeper than %d (MaxIncludeDepth)", l.include, MaxIncludeDepth)
		}
		if err := r.read(t, l.inclPos, stack, each); err != nil {
			return err
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
			return nil, errAt(l.inclPos, "Include %s: %v", l.include, err)
		}
		return matches, nil // an empty glob includes nothing, as in Slurm
	}
	if _, err := fs.Stat(r.fsys, target); err != nil {
		return nil, errAt(l.inclPos, "Include %s: cannot read %s: %s", l.include, target, errText(err))
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
