package selectnodes

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcsched/hpcsched/slurmconf"
)

// FromConfig builds a cluster from a parsed slurm.conf (a nil cfg or
// Option is an error matching ErrNilArgument). Nodes take the order of the
// file (cfg.NodeOrder), each slurmconf.NodeLine (the lines configured
// alike) one config record (with WithSlurmCompat each line of the file, as
// Slurm 22.05 makes them; see lineRecords). A configuration Validate
// refuses gives Validate's errors. The
// selector follows SelectType (select/linear gives Linear, cons_res and
// cons_tres give ConsRes) and FastSchedule follows the file, unless opts
// say otherwise. Node states DOWN and FUTURE become NodeDown, DRAIN
// NodeDrain, the rest NodeUp. Partition MaxNodes/MaxTime of UNLIMITED
// become 0 (no limit); SelectTypeParameters CR_LLN sets LLN on every
// partition. Partitions' AllowQOS and DenyQOS are enforced only when
// AccountingStorageType is accounting_storage/slurmdbd (WithQOSChecks).
func FromConfig(cfg *slurmconf.Config, opts ...Option) (*Cluster, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: selectnodes.FromConfig: the configuration is nil", ErrNilArgument)
	}
	if err := nilOption("FromConfig", opts); err != nil {
		return nil, err
	}
	c, err := fromConfig(cfg, opts)
	if err != nil {
		// New finds every problem Validate does (names defined twice,
		// partitions naming undefined nodes or defined twice), so a
		// configuration that builds is valid: Validate, which costs a
		// second name table, runs only now, for its positioned errors
		if verr := cfg.Validate(); verr != nil {
			return nil, verr
		}
		return nil, err
	}
	return c, nil
}

// fromConfig is FromConfig but for Validate's positioned errors.
func fromConfig(cfg *slurmconf.Config, opts []Option) (*Cluster, error) {
	nodes, confs := configNodes(cfg)
	var all []string // every node in file order, for the partitions of Nodes=ALL
	for i := range cfg.Partitions {
		if cfg.Partitions[i].AllNodes && all == nil { // a list made here is the cluster's; cfg's stay the caller's
			all = make([]string, len(nodes))
			for k := range nodes {
				all[k] = nodes[k].Name
			}
		}
	}
	if compatRequested(opts) {
		slurmNodeOrder(nodes) // compat_order.go
	}
	var parts []Partition
	var owned []bool
	for i := range cfg.Partitions {
		p := &cfg.Partitions[i]
		part := Partition{Name: p.Name, Nodes: p.Nodes, Default: p.Default, MinNodes: p.MinNodes,
			MaxNodes: max(p.MaxNodes, 0), Priority: p.PriorityTier, RootOnly: p.RootOnly, Sharing: sharingOf(p.Sharing),
			Hidden: p.Hidden, MaxMemPerNode: maxMemPerNode(p), MaxCPUsPerNode: p.MaxCPUsPerNode,
			LLN: p.LLN || leastLoaded(cfg), Access: Access{AllowGroups: p.AllowGroups,
				AllowAccounts: p.AllowAccounts, DenyAccounts: p.DenyAccounts, AllowQOS: p.AllowQOS, DenyQOS: p.DenyQOS}}
		if p.MaxTime != slurmconf.Unlimited {
			part.MaxTime = p.MaxTime
		}
		if p.DefaultTime != slurmconf.Unlimited {
			part.DefaultTime = p.DefaultTime
		}
		part.DefMemPerCPU, part.DefMemPerNode = defaultMemory(cfg, p)
		switch p.State {
		case "DOWN":
			part.State = PartitionDown
		case "DRAIN":
			part.State = PartitionDrain
		case "INACTIVE":
			part.State = PartitionInactive
		}
		if p.AllNodes {
			part.Nodes = all
		}
		parts, owned = append(parts, part), append(owned, p.AllNodes)
	}
	base := []Option{WithFastSchedule(cfg.FastSchedule), WithQOSChecks(hasSlurmdbd(cfg))}
	switch t := strings.ToLower(cfg.SelectType); {
	case t == "" || t == "select/linear":
		base = append(base, WithSelector(Linear{}))
	case strings.HasPrefix(t, "select/cons_"):
		base = append(base, WithSelector(ConsRes{}))
	default:
		return nil, fmt.Errorf("selectnodes: SelectType %s is not modelled (select/linear, select/cons_res and select/cons_tres are)", cfg.SelectType)
	}
	return newForConfig(cfg, nodes, confs, parts, owned, append(base, opts...))
}

// hasSlurmdbd reports whether cfg keeps accounting in slurmdbd, the only
// accounting storage that knows QOS: without it Slurm enforces no
// partition's AllowQOS or DenyQOS (WithQOSChecks).
func hasSlurmdbd(cfg *slurmconf.Config) bool {
	t, _ := cfg.Get("AccountingStorageType")
	return strings.EqualFold(strings.TrimSpace(t), "accounting_storage/slurmdbd")
}

// configNodes makes the nodes of cfg's NodeName lines, in file order
// (slurmconf.Config.NodeOrder): one configuration per NodeLine (its own
// copy of the line's features and GRES), which the line's nodes share;
// confs[i] is cfg.Nodes[i]'s.
func configNodes(cfg *slurmconf.Config) (nodes []node, confs []nodeConf) {
	nodes = make([]node, 0, cfg.NodeCount())
	confs = make([]nodeConf, len(cfg.Nodes)) // one configuration per NodeLine, shared by its nodes
	for li := range cfg.Nodes {
		line := &cfg.Nodes[li]
		conf := &confs[li]
		*conf = nodeConf{CPUs: line.CPUs, Boards: line.Boards, Sockets: line.SocketsPerBoard,
			CoresPerSocket: line.CoresPerSocket, Threads: line.ThreadsPerCore, RealMemory: line.RealMemory,
			TmpDisk: line.TmpDisk, Weight: line.Weight, Features: slices.Clone(line.Features), State: nodeState(line.State)}
		for _, g := range line.Gres {
			conf.GRES = append(conf.GRES, GRES{Name: g.Name, Type: g.Type, Count: g.Count})
		}
	}
	for li, k := range cfg.NodeOrder() {
		nodes = append(nodes, node{Name: cfg.Nodes[li].Names[k], nodeConf: &confs[li]})
	}
	return nodes, confs
}

func newForConfig(cfg *slurmconf.Config, nodes []node, confs []nodeConf, parts []Partition, owned []bool, opts []Option) (*Cluster, error) {
	reordered := compatRequested(opts)
	c, err := build(nodes, parts, owned, opts, func(c *Cluster) { c.lineRecords(cfg, confs, reordered) })
	if err != nil {
		return nil, err
	}
	c.memConsumable = memoryConsumable(cfg)
	return c, nil
}

// lineRecords makes config records of the NodeName lines: Slurm's config
// records are the lines, not equal configurations, so the order (and so
// the count-feature behaviour of the Novotný thesis §3.3) follows the file.
// With SlurmCompat (compat) each line of the file is a record, in file
// order, as in Slurm 22.05: a node set per line, which decides where
// _pick_best_nodes first calls the selector. Otherwise each
// slurmconf.NodeLine is one: the lines slurmconf grouped (configured
// alike, wherever they stand) make one record, so a file with a line per
// node is selected from as the same nodes written as ranges. Unless the
// nodes were reordered (compat_order.go), node k of the file is node k of
// the cluster, and no name is looked up.
func (c *Cluster) lineRecords(cfg *slurmconf.Config, confs []nodeConf, compat bool) {
	c.recOf = make([]int32, len(c.nodes))
	slab := make([]int, len(c.nodes)) // every record's nodes, carved in turn: one allocation, not one per line
	if compat {
		c.fileLineRecords(cfg, slab)
	} else {
		c.configRecords(confs, slab)
	}
	c.finishRecords()
}

// configRecords makes a record of each configuration (NodeLine), its
// nodes carved from slab, in the order of confs.
func (c *Cluster) configRecords(confs []nodeConf, slab []int) {
	index := make(map[*nodeConf]int, len(confs))
	for k := range confs {
		index[&confs[k]] = k
	}
	counts := make([]int, len(confs))
	c.eachConf(index, func(k, _ int) { counts[k]++ })
	lists := make([][]int, len(confs))
	for k, n := range counts {
		lists[k], slab = slab[:0:n], slab[n:]
	}
	c.eachConf(index, func(k, i int) { lists[k] = append(lists[k], i) }) // ascending
	c.records = make([]record, 0, len(confs))
	for _, nodes := range lists {
		if len(nodes) > 0 { // a Config made by hand may hold a line of no node: no record
			c.records = append(c.records, c.newRecord(nodes))
		}
	}
}

// eachConf calls fn with each node's configuration's index and the node.
func (c *Cluster) eachConf(index map[*nodeConf]int, fn func(k, i int)) {
	var last *nodeConf
	k := 0
	for i := range c.nodes {
		if conf := c.nodes[i].nodeConf; conf != last {
			last, k = conf, index[conf]
		}
		fn(k, i)
	}
}

// fileLineRecords makes a record of each line of the file, in file order,
// its nodes carved from slab; the nodes were reordered (compat_order.go),
// so each is found by name.
func (c *Cluster) fileLineRecords(cfg *slurmconf.Config, slab []int) {
	count := 0
	for li := range cfg.Nodes {
		count += cfg.Nodes[li].Lines()
	}
	c.records = make([]record, 0, count)
	nextLine := make([]int, len(cfg.Nodes)) // per NodeLine, the first of its lines not begun
	lo, hi := 0, 0                          // slab[lo:hi] holds the nodes of the line being read
	for li, k := range cfg.NodeOrder() {
		line := &cfg.Nodes[li]
		begins := false // k is the first name of one of line's lines
		for nextLine[li] < line.Lines() && line.LineStart(nextLine[li]) <= k {
			nextLine[li]++
			begins = true
		}
		if begins && hi > lo {
			c.records = append(c.records, c.newRecord(slab[lo:hi:hi]))
			lo = hi
		}
		slab[hi], _ = c.NodeIndex(line.Names[k])
		hi++
	}
	if hi > lo {
		c.records = append(c.records, c.newRecord(slab[lo:hi:hi]))
	}
}

// newRecord is the record of nodes (carved for it, sorted here), which
// share a configuration; its order is its place among the records.
func (c *Cluster) newRecord(nodes []int) record {
	slices.Sort(nodes) // ascending whatever the node order
	rec := record{order: len(c.records), nodes: nodes}
	n := &c.nodes[rec.nodes[0]]
	rec.weight, rec.features, rec.cpus, rec.mem, rec.tmp = n.Weight, n.Features, n.CPUs, n.RealMemory, n.TmpDisk
	return rec
}

// nodeState is the model's state of a node whose slurm.conf State= is s,
// words joined by '+': down when any word is (DOWN, FUTURE), else drained
// when any word keeps new jobs off it (DRAIN, and FAIL and FAILING, which
// Slurm's manual likens to it), else up (UNKNOWN, IDLE, CLOUD's powered
// down node, which Slurm powers up for a job).
func nodeState(s string) NodeState {
	state := NodeUp
	for w := range strings.SplitSeq(strings.ToUpper(s), "+") {
		switch w {
		case "DOWN", "FUTURE":
			return NodeDown
		case "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING":
			state = NodeDrain
		}
	}
	return state
}

// sharingOf converts slurm.conf's OverSubscribe into the model's own type.
func sharingOf(s slurmconf.Sharing) Sharing {
	mode := ShareNo
	switch s.Mode {
	case slurmconf.ShareYes:
		mode = ShareYes
	case slurmconf.ShareExclusive:
		mode = ShareExclusive
	case slurmconf.ShareForce:
		mode = ShareForce
	}
	return Sharing{Mode: mode, Count: s.Count}
}

// maxMemPerNode reads MaxMemPerNode= (MB; UNLIMITED or absent: 0), which
// slurmconf keeps among a partition's other keys.
func maxMemPerNode(p *slurmconf.PartitionLine) int64 {
	for _, kv := range p.Extra {
		if strings.EqualFold(kv.Key, "MaxMemPerNode") {
			if n, err := strconv.ParseInt(kv.Value, 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// defaultMemory reads a partition's DefMemPerCPU and DefMemPerNode (MB),
// falling back to the global ones; both are 0 unless memory is consumable
// (SelectTypeParameters CR_*_Memory), as Slurm counts memory only then.
func defaultMemory(cfg *slurmconf.Config, p *slurmconf.PartitionLine) (perCPU, perNode int64) {
	if !memoryConsumable(cfg) {
		return 0, 0
	}
	perCPU = cmp.Or(p.DefMemPerCPU, cfg.DefMemPerCPU)
	perNode = extraMB(p.Extra, "DefMemPerNode")
	if perNode == 0 {
		if v, ok := cfg.Get("DefMemPerNode"); ok {
			perNode, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return perCPU, max(perNode, 0)
}

// extraMB reads a partition key slurmconf keeps among the others, in MB
// (UNLIMITED or absent: 0).
func extraMB(extra []slurmconf.Pair, key string) int64 {
	for _, kv := range extra {
		if strings.EqualFold(kv.Key, key) {
			if n, err := strconv.ParseInt(kv.Value, 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// leastLoaded reports whether SelectTypeParameters has CR_LLN, which is
// LLN=YES on every partition.
func leastLoaded(cfg *slurmconf.Config) bool {
	for _, t := range cfg.SelectTypeParameters {
		if strings.EqualFold(strings.TrimSpace(t), "CR_LLN") {
			return true
		}
	}
	return false
}

// memoryConsumable reports whether SelectTypeParameters count memory.
func memoryConsumable(cfg *slurmconf.Config) bool {
	for _, t := range cfg.SelectTypeParameters {
		if strings.Contains(strings.ToLower(t), "memory") {
			return true
		}
	}
	return false
}
