package slurmconf

import (
	"io"
	"slices"
	"strings"
)

// Config is a parsed slurm.conf, with its includes.
type Config struct {
	Nodes      []NodeLine
	Partitions []PartitionLine
	// Records holds the other record lines (FrontendName, DownNodes,
	// NodeSet) as their pairs.
	Records []Record
	// Params holds every key=value that is not part of a record, in file
	// order, known keys included; Get looks them up.
	Params []Pair
	// Includes lists Include lines that Parse (unlike ParseFile) did not
	// follow, so nothing in the input is lost silently.
	Includes []Pair
	// Files lists the files read by ParseFile, the main file first.
	Files []string

	Scheduling
}

// Scheduling holds the parameters that steer scheduling, typed. A value not
// given in the file keeps Slurm's default.
type Scheduling struct {
	ClusterName          string
	SelectType           string   // e.g. "select/cons_tres"
	SelectTypeParameters []string // e.g. ["CR_Core_Memory"]
	SchedulerType        string   // e.g. "sched/backfill"
	SchedulerParameters  []string // e.g. ["bf_window=2880", "bf_continue"]
	TopologyPlugin       string   // e.g. "topology/tree"
	PriorityType         string   // e.g. "priority/multifactor"
	// PriorityWeights maps the factor of each PriorityWeight<Factor> key,
	// lower-cased ("age", "fairshare", "jobsize", "partition", "qos"), to its
	// weight. PriorityWeightTRES is a list and stays in Params.
	PriorityWeights map[string]int64
	// FastSchedule is 0, 1 (Slurm's default) or 2; see the Novotný thesis §2.3.3.
	FastSchedule int
	GresTypes    []string
	DefMemPerCPU int64 // MB; 0 when not set
}

// Record is a record line the package does not model field by field.
type Record struct {
	Kind  string // the first key, e.g. "FrontendName"
	Name  string // its value
	Pairs []Pair // every pair, the first included
	Pos   Pos
}

// Get returns the last value given for a top-level key, ignoring case.
func (c *Config) Get(key string) (string, bool) {
	if c == nil {
		return "", false
	}
	for i := len(c.Params) - 1; i >= 0; i-- {
		if c.Params[i].is(key) {
			return c.Params[i].Value, true
		}
	}
	return "", false
}

// SchedulerParameter looks up one item of SchedulerParameters: for
// "bf_window=2880" it returns "2880", true; for a bare flag such as
// "bf_continue" it returns "", true.
func (c *Config) SchedulerParameter(name string) (string, bool) {
	if c == nil {
		return "", false
	}
	for _, item := range c.SchedulerParameters {
		k, v, _ := strings.Cut(item, "=")
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Node returns the node line defining name, if any: a pointer into
// c.Nodes, so changing the line changes c.
func (c *Config) Node(name string) (*NodeLine, bool) {
	if c == nil {
		return nil, false
	}
	for i := range c.Nodes {
		for _, n := range c.Nodes[i].Names {
			if n == name {
				return &c.Nodes[i], true
			}
		}
	}
	return nil, false
}

// NodeCount is the number of node names defined.
func (c *Config) NodeCount() int {
	if c == nil {
		return 0
	}
	n := 0
	for i := range c.Nodes {
		n += len(c.Nodes[i].Names)
	}
	return n
}

// PartitionNodes returns the nodes of p, resolving Nodes=ALL to every node
// defined, in definition order (NodeNames, a new slice); otherwise it is
// p.Nodes itself.
func (c *Config) PartitionNodes(p *PartitionLine) []string {
	if !p.AllNodes {
		return p.Nodes
	}
	return c.NodeNames()
}

// Parse reads a slurm.conf from r, within the Limits the options give.
// Include lines are not followed (r has no folder to resolve them in); they
// are listed in Config.Includes. Use ParseFile to follow them.
func Parse(r io.Reader, opts ...Option) (*Config, error) {
	bud, err := newBudget("Parse", r, opts)
	if err != nil {
		return nil, err
	}
	b := newBuilder(bud)
	if err := readAll(b.bud, r, &b.cfg.Includes, b.line); err != nil {
		return nil, err
	}
	return b.cfg, nil
}

// builder turns lines into a Config, carrying the DEFAULT templates.
type builder struct {
	cfg  *Config
	bud  *budget
	node *nodeBuild
	part *partBuild
	// names holds the names of node lines folded into an earlier one
	names nameArena
	// groups finds the NodeLine of a configuration read before
	groups nodeGroups
}

func newBuilder(bud *budget) *builder {
	return &builder{cfg: &Config{Scheduling: Scheduling{FastSchedule: 1}}, bud: bud,
		node: newNodeTemplate(), part: newPartTemplate(), groups: newNodeGroups()}
}

func (b *builder) line(l line) error {
	first := l.pairs[0]
	isDefault := strings.EqualFold(first.Value, "DEFAULT")
	switch {
	case first.is("NodeName") && isDefault:
		// a DEFAULT line updates the template in place: later lines win
		// key by key, at a cost proportional to the line
		return applyAll(b.bud, b.node, l.pairs[1:], true)
	case first.is("NodeName"):
		n, err := buildNode(b.bud, b.node, l.pairs)
		if err != nil {
			return err
		}
		b.groups.add(b.cfg, &b.names, &n)
	case first.is("PartitionName") && isDefault:
		return applyAll(b.bud, b.part, l.pairs[1:], true)
	case first.is("PartitionName"):
		if err := b.bud.record(l.pos); err != nil {
			return err
		}
		p, err := buildPartition(b.bud, b.part, l.pairs)
		if err != nil {
			return err
		}
		b.cfg.Partitions = append(b.cfg.Partitions, p)
	case first.is("FrontendName"), first.is("DownNodes"), first.is("NodeSet"):
		if err := b.bud.record(l.pos); err != nil {
			return err
		}
		if err := b.bud.keep(len(l.pairs), l.pos); err != nil {
			return err
		}
		b.cfg.Records = append(b.cfg.Records, Record{Kind: first.Key, Name: first.Value, Pairs: slices.Clone(l.pairs), Pos: l.pos})
	default:
		for _, p := range l.pairs {
			if err := b.bud.keep(1, p.Pos); err != nil {
				return err
			}
			if err := b.cfg.Scheduling.set(p); err != nil {
				return err
			}
			b.cfg.Params = append(b.cfg.Params, p)
		}
	}
	return nil
}

func (s *Scheduling) set(p Pair) error {
	key := strings.ToLower(p.Key)
	switch key {
	case "clustername":
		s.ClusterName = p.Value
	case "selecttype":
		s.SelectType = p.Value
	case "selecttypeparameters":
		s.SelectTypeParameters = p.list()
	case "schedulertype":
		s.SchedulerType = p.Value
	case "schedulerparameters":
		s.SchedulerParameters = p.list()
	case "topologyplugin":
		s.TopologyPlugin = p.Value
	case "prioritytype":
		s.PriorityType = p.Value
	case "grestypes":
		s.GresTypes = p.list()
	case "fastschedule":
		v, err := p.int(0, 2)
		if err != nil {
			return err
		}
		s.FastSchedule = int(v)
	case "defmempercpu":
		v, err := p.int(0, 1<<53)
		if err != nil {
			return err
		}
		s.DefMemPerCPU = v
	default:
		if f, ok := strings.CutPrefix(key, "priorityweight"); ok && f != "tres" && f != "" {
			v, err := p.int(0, 1<<53)
			if err != nil {
				return err
			}
			if s.PriorityWeights == nil {
				s.PriorityWeights = map[string]int64{}
			}
			s.PriorityWeights[f] = v
		}
	}
	return nil
}
