package slurmconf

import (
	"io"
	"io/fs"
	"strings"
)

// GresConfig is a parsed gres.conf.
type GresConfig struct {
	Lines    []GresLine
	Params   []Pair // lines without Name=, such as AutoDetect=nvml
	Includes []Pair // Include lines Parse did not follow
}

// GresLine is one resource line of gres.conf.
type GresLine struct {
	// NodeNames is NodeName= expanded; nil means the line applies to the
	// node reading the file.
	NodeNames []string
	Name      string
	Type      string
	// Count is Count= (K, M, G and T suffixes allowed), else the number of
	// files, else 1.
	Count int64
	Files []string // File= expanded, e.g. /dev/nvidia[0-3]
	Cores string   // Cores= as written
	Extra []Pair
	Pos   Pos
}

// ParseGres reads a gres.conf from r (Include lines are listed, not
// followed), within the Limits the options give.
func ParseGres(r io.Reader, opts ...Option) (*GresConfig, error) {
	g := &GresConfig{}
	b, err := newBudget("ParseGres", r, opts)
	if err != nil {
		return nil, err
	}
	if err := readAll(b, r, &g.Includes, func(l line) error { return g.line(b, l) }); err != nil {
		return nil, err
	}
	return g, nil
}

// ParseGresFile reads the gres.conf called name in fsys, following Include
// lines as ParseFile does.
func ParseGresFile(fsys fs.FS, name string, opts ...Option) (*GresConfig, error) {
	g := &GresConfig{}
	bud, err := newBudget("ParseGresFile", fsys, opts)
	if err != nil {
		return nil, err
	}
	r := includeReader{fsys: fsys, bud: bud}
	if err := r.readRoot(name, func(l line) error { return g.line(r.bud, l) }); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *GresConfig) line(b *budget, l line) error {
	hasName := false
	for _, p := range l.pairs {
		hasName = hasName || p.is("Name")
	}
	if !hasName {
		if err := b.keep(len(l.pairs), l.pos); err != nil {
			return err
		}
		g.Params = append(g.Params, l.pairs...)
		return nil
	}
	if err := b.record(l.pos); err != nil {
		return err
	}
	gl := GresLine{Pos: l.pos}
	countSet := false
	for _, p := range l.pairs {
		var err error
		switch strings.ToLower(p.Key) {
		case "nodename":
			gl.NodeNames, err = b.hosts(p, false)
		case "name":
			gl.Name = p.Value
			if gl.Name == "" {
				err = p.err("Name is empty")
			}
		case "type":
			gl.Type = p.Value
		case "count":
			c, ok := scaled(p.Value)
			if !ok {
				err = p.err("Count: %q is not a count (a number with an optional K, M, G or T)", p.Value)
			}
			gl.Count, countSet = c, true
		case "file":
			gl.Files, err = b.hosts(p, false)
		case "cores":
			gl.Cores = p.Value
		default:
			if err = b.keep(1, p.Pos); err == nil {
				gl.Extra = append(gl.Extra, p)
			}
		}
		if err != nil {
			return err
		}
	}
	if !countSet {
		gl.Count = 1
		if len(gl.Files) > 0 {
			gl.Count = int64(len(gl.Files))
		}
	}
	g.Lines = append(g.Lines, gl)
	return nil
}
