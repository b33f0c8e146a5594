package queue

import "github.com/hpcsched/hpcsched/selectnodes"

// admitKey is every field of a plain request (one with no feature
// expression, node lists, withheld nodes, GRES or groups): what a TestOnly
// selection reads of it. A replay submits thousands of jobs of a few
// shapes; the first of a shape pays for the selection, the rest for a map
// lookup.
type admitKey struct {
	partition, user, account, qos    string
	minNodes, maxNodes, desiredNodes int
	cpus, minCPUsPerNode, maxPerSock int
	minMemory, minTmpDisk, memPerCPU int64
	wholeMemory, coreTasks, root     bool
	contiguous, held                 bool
	maxSwitches                      int
	share                            selectnodes.ShareRequest
	timeLimit                        int64
}

// maxAdmitted bounds the shapes remembered; past it the memo starts over.
const maxAdmitted = 4096

// plainKey returns req's admitKey, or false when req has a field the key
// does not hold (such a request is always selected afresh).
func plainKey(req *selectnodes.Request) (admitKey, bool) {
	if req.Features != nil || len(req.Required) > 0 || len(req.Excluded) > 0 ||
		req.ExcludeNodes != nil || len(req.GRES) > 0 || len(req.Groups) > 0 {
		return admitKey{}, false
	}
	return admitKey{
		partition: req.Partition, user: req.User, account: req.Account, qos: req.QOS,
		minNodes: req.MinNodes, maxNodes: req.MaxNodes, desiredNodes: req.DesiredNodes,
		cpus: req.CPUs, minCPUsPerNode: req.MinCPUsPerNode, maxPerSock: req.MaxCPUsPerSocket,
		minMemory: req.MinMemoryPerNode, minTmpDisk: req.MinTmpDiskPerNode, memPerCPU: req.MemPerCPU,
		wholeMemory: req.WholeMemory, coreTasks: req.CoreTasks, root: req.Root,
		contiguous: req.Contiguous, held: req.Held, maxSwitches: req.MaxSwitches,
		share: req.Share, timeLimit: int64(req.TimeLimit),
	}, true
}

// admittedBefore reports whether a request of req's shape passed the
// TestOnly probe since the cluster's nodes and partitions last changed.
func (s *Scheduler) admittedBefore(req *selectnodes.Request) bool {
	k, ok := plainKey(req)
	if !ok {
		return false
	}
	// a trace's jobs come in runs of one shape (a user's bursts): the
	// shape admitted last is compared first, without hashing the key
	if s.admitted != nil && s.lastAdmitted == k {
		return true
	}
	if held := s.admitted[k.hash()]; held != nil && *held == k {
		s.lastAdmitted = k
		return true
	}
	return false
}

// noteAdmitted remembers that req's shape passed the TestOnly probe.
func (s *Scheduler) noteAdmitted(req *selectnodes.Request) {
	k, ok := plainKey(req)
	if !ok {
		return
	}
	if s.admitted == nil || len(s.admitted) >= maxAdmitted {
		s.admitted = make(map[uint64]*admitKey)
	}
	s.admitted[k.hash()] = &k // (a shape of the same hash is forgotten)
	s.lastAdmitted = k
}

// configChanged forgets the admitted shapes: a node's state or a
// partition changed what a TestOnly selection may find.
func (s *Scheduler) configChanged() { s.admitted = nil }

// hash is k's key in Scheduler.admitted: the memo is a map by a word
// hashed here, holding the whole key to compare, rather than a map by the
// key, whose generic hash of a struct of strings and numbers cost a
// submission more than this one. Two shapes of one hash share a slot: the
// one noted last holds it, and the other is probed again.
func (k *admitKey) hash() uint64 {
	h := hashString(14695981039346656037, k.partition)
	h = hashString(h, k.user)
	h = hashString(h, k.account)
	h = hashString(h, k.qos)
	h = hashWord(h, uint64(k.minNodes)^uint64(k.maxNodes)<<21^uint64(k.desiredNodes)<<42)
	h = hashWord(h, uint64(k.cpus)^uint64(k.minCPUsPerNode)<<21^uint64(k.maxPerSock)<<42)
	h = hashWord(h, uint64(k.minMemory)^uint64(k.minTmpDisk)<<21^uint64(k.memPerCPU)<<42)
	h = hashWord(h, uint64(k.maxSwitches)^uint64(k.share)<<32^uint64(k.timeLimit)*0x9e3779b97f4a7c15)
	flags := uint64(0)
	for i, b := range [...]bool{k.wholeMemory, k.coreTasks, k.root, k.contiguous, k.held} {
		if b {
			flags |= 1 << i
		}
	}
	return hashWord(h, flags)
}

const hashPrime = 1099511628211

func hashWord(h, v uint64) uint64 { return (h ^ v) * hashPrime }

// hashString mixes s's bytes, and its end ("ab","c" is not "a","bc").
func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * hashPrime
	}
	return (h ^ 0x100) * hashPrime
}
