package selectnodes

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// OfferKey is what an Offer's answers about nodes depend on in a request:
// two requests of equal keys, asked of one cluster (or snapshot) under
// one load, get offers whose Nodes, Whole, CPUsPerNode, CPUs, GRES,
// Alternatives and Use agree whenever both are offers at all. Left out
// are the fields that decide only the node counts and the error, which
// OfferTerms gives for each request on its own: the node counts and
// the CPU total (MinNodes, MaxNodes, DesiredNodes, CPUs), the time limit,
// Held, and who submits (Root, User, Groups, Account, QOS).
//
// A planner asking for the offers of many jobs alike (a window of jobs
// that differ in their sizes only) asks one offer a key and reads each
// job's counts from OfferTerms. The zero OfferKey is no request's.
type OfferKey struct {
	partition          string
	minCPUsPerNode     int
	memPerNode, tmp    int64
	memPerCPU          int64
	wholeMemory        bool
	coreTasks          bool
	maxCPUsPerSocket   int
	features           string // the expression's canonical form
	required, excluded string // the names, each with its length
	excludeNodes       string // the bitmap's length and words; "" for nil
	contiguous         bool
	maxSwitches        int
	share              ShareRequest
	gres0              GRESRequest // the first GRES request, most jobs' only one
	gresMore           string      // the others, each field with its length
	made               bool        // a key made by OfferKey, not the zero value
}

// OfferKey is the key of req's offer on this cluster, false when offers
// cannot be shared: a nil request, or a selector other than the built-in
// ones, whose filter may read any field of the request.
func (c *Cluster) OfferKey(req *Request) (OfferKey, bool) {
	c.mustBeMade("OfferKey")
	if req == nil {
		return OfferKey{}, false
	}
	if _, ok := builtinFilter(c.selector); !ok {
		return OfferKey{}, false
	}
	k := OfferKey{
		partition: req.Partition, minCPUsPerNode: req.MinCPUsPerNode,
		memPerNode: req.MinMemoryPerNode, tmp: req.MinTmpDiskPerNode, memPerCPU: req.MemPerCPU,
		wholeMemory: req.WholeMemory, coreTasks: req.CoreTasks, maxCPUsPerSocket: req.MaxCPUsPerSocket,
		required: joinNames(req.Required), excluded: joinNames(req.Excluded),
		contiguous: req.Contiguous, maxSwitches: req.MaxSwitches, share: req.Share, made: true,
	}
	if req.Features != nil {
		k.features = req.Features.String()
	}
	if x := req.ExcludeNodes; x != nil {
		b := strconv.AppendUint(nil, uint64(x.Len()), 10)
		b = append(b, ':')
		for _, w := range x.Words() {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		k.excludeNodes = string(b)
	}
	if len(req.GRES) > 0 {
		k.gres0 = req.GRES[0]
		var b strings.Builder
		for _, g := range req.GRES[1:] {
			writeField(&b, g.Name)
			writeField(&b, g.Type)
			writeField(&b, strconv.FormatInt(g.Min, 10))
			writeField(&b, strconv.FormatInt(g.Max, 10))
		}
		k.gresMore = b.String()
	}
	return k, true
}

// OfferKey is Cluster.OfferKey on the snapshot.
func (s *Snapshot) OfferKey(req *Request) (OfferKey, bool) { return s.c.OfferKey(req) }

// joinNames is names with each one's length before it, so that no two
// lists join alike.
func joinNames(names []string) string {
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range names {
		writeField(&b, s)
	}
	return b.String()
}

func writeField(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}
