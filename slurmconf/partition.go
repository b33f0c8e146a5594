package slurmconf

import (
	"math"
	"strings"
	"time"
)

// ShareMode is a partition's OverSubscribe (formerly Shared) setting, which
// with the job's --exclusive/--share decides whether jobs may share nodes
// (the Novotný thesis, Table 2.1).
type ShareMode int

const (
	ShareNo        ShareMode = iota // NO: only jobs asking to share do (cons_res: resources)
	ShareYes                        // YES: jobs asking to share may, up to Count per node
	ShareExclusive                  // EXCLUSIVE: every job gets whole nodes
	ShareForce                      // FORCE: every job shares, up to Count per node
)

var shareNames = [...]string{"NO", "YES", "EXCLUSIVE", "FORCE"}

func (m ShareMode) String() string {
	if m >= 0 && int(m) < len(shareNames) {
		return shareNames[m]
	}
	return "ShareMode(" + itoa(int64(m)) + ")"
}

// Sharing is OverSubscribe=MODE[:COUNT]. Count is the most jobs per node;
// Slurm's default for YES and FORCE is 4, and 1 otherwise.
type Sharing struct {
	Mode  ShareMode
	Count int
}

// PartitionLine is one PartitionName= line, with the DEFAULT values in force
// where it stands.
type PartitionLine struct {
	Name     string
	Nodes    []string // expanded; nil when AllNodes
	AllNodes bool     // Nodes=ALL
	Default  bool
	MinNodes int
	MaxNodes int // UnlimitedNodes when not limited
	// MaxTime and DefaultTime are 0 when not given; Unlimited for INFINITE.
	MaxTime     time.Duration
	DefaultTime time.Duration
	// Priority is Priority= (or PriorityJobFactor=). PriorityTier is
	// PriorityTier=, or Priority= when only that is given, as Slurm does.
	Priority     int
	PriorityTier int
	Sharing      Sharing
	RootOnly     bool
	Hidden       bool
	State        string // upper case: UP (default), DOWN, DRAIN or INACTIVE
	DefMemPerCPU int64  // MB; 0 when not set
	// MaxCPUsPerNode is the most CPUs of one node the partition's jobs may
	// use; 0 when not limited (absent, UNLIMITED or INFINITE).
	MaxCPUsPerNode int
	// LLN is LLN=YES: jobs go to the least loaded nodes (most idle CPUs)
	// within a weight, as SelectTypeParameters CR_LLN does everywhere.
	LLN bool

	AllowAccounts, DenyAccounts []string
	AllowGroups                 []string
	AllowQOS, DenyQOS           []string
	// TRESBillingWeights is kept as written, e.g. "CPU=1.0,Mem=0.25G".
	TRESBillingWeights string

	Extra []Pair // keys not modelled above, kept in order
	Pos   Pos
}

// partBuild is a PartitionLine being built, as a PartitionName=DEFAULT
// template or as a partition line copied from one.
type partBuild struct {
	p       PartitionLine
	tierSet bool
	extra   defaultSet // a template's unmodelled pairs
}

func newPartTemplate() *partBuild {
	return &partBuild{p: PartitionLine{MaxNodes: UnlimitedNodes, State: "UP", Sharing: Sharing{Mode: ShareNo, Count: 1}}}
}

// buildPartition builds the partition line pairs from the template in
// force, sharing the template's slices (Nodes, account lists).
func buildPartition(b *budget, tmpl *partBuild, pairs []Pair) (PartitionLine, error) {
	s := partBuild{p: tmpl.p, tierSet: tmpl.tierSet}
	p := &s.p
	p.Name, p.Pos = pairs[0].Value, pairs[0].Pos
	if p.Name == "" {
		return *p, pairs[0].err("PartitionName is empty")
	}
	if strings.ContainsAny(p.Name, "=,") {
		return *p, pairs[0].err("PartitionName %q is not a valid partition name", p.Name)
	}
	var err error
	if p.Extra, err = inherit(b, &tmpl.extra, p.Pos); err != nil {
		return *p, err
	}
	if err := applyAll(b, &s, pairs[1:], false); err != nil {
		return *p, err
	}
	if p.MaxNodes != UnlimitedNodes && p.MinNodes > p.MaxNodes {
		return *p, errAt(p.Pos, "partition %s: MinNodes %d is above MaxNodes %d", p.Name, p.MinNodes, p.MaxNodes)
	}
	return *p, nil
}

// apply sets one key. A template keeps unmodelled keys in its defaultSet.
func (s *partBuild) apply(b *budget, kv Pair, template bool) error {
	p := &s.p
	var err error
	switch strings.ToLower(kv.Key) {
	case "nodes":
		if strings.EqualFold(kv.Value, "ALL") {
			p.AllNodes, p.Nodes = true, nil
		} else {
			p.AllNodes = false
			p.Nodes, err = b.hosts(kv, false)
		}
	case "default":
		p.Default, err = kv.bool()
	case "minnodes":
		p.MinNodes, err = kv.count()
	case "maxnodes":
		p.MaxNodes, err = nodeLimit(kv)
	case "maxtime":
		p.MaxTime, err = kv.duration()
	case "defaulttime":
		p.DefaultTime, err = kv.duration()
	case "priority", "priorityjobfactor":
		var v int64
		v, err = kv.int(0, math.MaxUint16)
		p.Priority = int(v)
		if !s.tierSet && strings.EqualFold(kv.Key, "priority") {
			p.PriorityTier = int(v)
		}
	case "prioritytier":
		var v int64
		v, err = kv.int(0, math.MaxUint16)
		p.PriorityTier, s.tierSet = int(v), true
	case "shared", "oversubscribe":
		p.Sharing, err = parseSharing(kv)
	case "rootonly":
		p.RootOnly, err = kv.bool()
	case "hidden":
		p.Hidden, err = kv.bool()
	case "state":
		p.State = strings.ToUpper(kv.Value)
		switch p.State {
		case "UP", "DOWN", "DRAIN", "INACTIVE":
		default:
			err = kv.err("State: %q is not UP, DOWN, DRAIN or INACTIVE", kv.Value)
		}
	case "defmempercpu":
		p.DefMemPerCPU, err = kv.int(0, 1<<53)
	case "maxcpuspernode":
		p.MaxCPUsPerNode, err = cpuLimit(kv)
	case "lln":
		p.LLN, err = kv.bool()
	case "allowaccounts":
		p.AllowAccounts = kv.list()
	case "denyaccounts":
		p.DenyAccounts = kv.list()
	case "allowgroups":
		p.AllowGroups = kv.list()
	case "allowqos":
		p.AllowQOS = kv.list()
	case "denyqos":
		p.DenyQOS = kv.list()
	case "tresbillingweights":
		p.TRESBillingWeights = kv.Value
	default:
		err = s.extra.keep(b, &p.Extra, kv, template)
	}
	return err
}

func nodeLimit(p Pair) (int, error) {
	switch strings.ToUpper(p.Value) {
	case "UNLIMITED", "INFINITE":
		return UnlimitedNodes, nil
	}
	return p.count()
}

// cpuLimit reads MaxCPUsPerNode: a count, or UNLIMITED/INFINITE (0).
func cpuLimit(p Pair) (int, error) {
	switch strings.ToUpper(p.Value) {
	case "UNLIMITED", "INFINITE":
		return 0, nil
	}
	return p.count()
}

// parseSharing reads NO, YES[:n], EXCLUSIVE or FORCE[:n].
func parseSharing(p Pair) (Sharing, error) {
	mode, count, hasCount := strings.Cut(p.Value, ":")
	var s Sharing
	switch strings.ToUpper(mode) {
	case "NO":
		s = Sharing{ShareNo, 1}
	case "YES":
		s = Sharing{ShareYes, 4}
	case "EXCLUSIVE":
		s = Sharing{ShareExclusive, 1}
	case "FORCE":
		s = Sharing{ShareForce, 4}
	default:
		return s, p.err("%s: %q is not NO, YES, EXCLUSIVE or FORCE", p.Key, p.Value)
	}
	if hasCount {
		if s.Mode != ShareYes && s.Mode != ShareForce {
			return s, p.err("%s: only YES and FORCE take a job count", p.Key)
		}
		n, err := p.within(count, len(mode)+1).int(1, math.MaxUint16)
		if err != nil {
			return s, err
		}
		s.Count = int(n)
	}
	return s, nil
}
