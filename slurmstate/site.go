package slurmstate

import (
	"fmt"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/position"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// LoadSite applies the state to a site at the site's Now (check.Options.Now
// should be when the files were written): Apply on its cluster, then every
// reservation that holds nodes withholds them from the requests whose run
// would overlap it (one without an end for ever).
func (st *State) LoadSite(s *check.Site) (Loaded, error) {
	if s == nil {
		return Loaded{}, fmt.Errorf("%w: slurmstate: LoadSite on a nil check.Site", selectnodes.ErrNilArgument)
	}
	loaded, err := st.Apply(s.Cluster, s.Now())
	if err != nil {
		return loaded, err
	}
	for _, r := range st.Reservations {
		if len(r.Nodes) == 0 {
			continue
		}
		end := r.End
		if end.IsZero() {
			end = s.Now().Add(farEnd)
		}
		if err := s.Reserve(hostlist.Compress(r.Nodes), r.Start, end); err != nil {
			return loaded, position.Wrapf(err, r.Pos, "reservation %s: %v", r.Name, err)
		}
	}
	return loaded, nil
}
