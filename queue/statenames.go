package queue

import (
	"github.com/hpcsched/hpcsched/selectnodes"
)

// The state format's names for enumerations, both ways. Functions rather
// than tables, so the package keeps no mutable globals.

func shareModeName(m selectnodes.ShareMode) string {
	switch m {
	case selectnodes.ShareYes:
		return "YES"
	case selectnodes.ShareExclusive:
		return "EXCLUSIVE"
	case selectnodes.ShareForce:
		return "FORCE"
	}
	return "NO"
}

func parseShareMode(s string) (selectnodes.ShareMode, bool) {
	for _, m := range []selectnodes.ShareMode{selectnodes.ShareNo, selectnodes.ShareYes, selectnodes.ShareExclusive, selectnodes.ShareForce} {
		if shareModeName(m) == s {
			return m, true
		}
	}
	return 0, false
}

func shareRequestName(r selectnodes.ShareRequest) string {
	switch r {
	case selectnodes.ShareExclusiveJob:
		return "EXCLUSIVE"
	case selectnodes.ShareOversubscribe:
		return "OVERSUBSCRIBE"
	}
	return "DEFAULT"
}

func parseShareRequest(s string) (selectnodes.ShareRequest, bool) {
	if s == "" {
		return selectnodes.ShareDefault, true
	}
	for _, r := range []selectnodes.ShareRequest{selectnodes.ShareDefault, selectnodes.ShareExclusiveJob, selectnodes.ShareOversubscribe} {
		if shareRequestName(r) == s {
			return r, true
		}
	}
	return 0, false
}

func parseNodeState(s string) (selectnodes.NodeState, bool) {
	for _, st := range []selectnodes.NodeState{selectnodes.NodeUp, selectnodes.NodeDrain, selectnodes.NodeDown} {
		if st.String() == s {
			return st, true
		}
	}
	return 0, false
}

func parsePartitionState(s string) (selectnodes.PartitionState, bool) {
	for _, st := range []selectnodes.PartitionState{selectnodes.PartitionUp, selectnodes.PartitionDrain, selectnodes.PartitionDown, selectnodes.PartitionInactive} {
		if st.String() == s {
			return st, true
		}
	}
	return 0, false
}

func parseState(s string) (State, bool) {
	for st := Pending; st <= NodeFail; st++ {
		if st.String() == s {
			return st, true
		}
	}
	return 0, false
}
