package sim

import (
	"slices"
	"time"
)

// BusyPoint is the number of allocated cores from At on.
type BusyPoint struct {
	At    time.Time
	Cores int
}

// BusyCores is the step function of allocated cores of a recorded run,
// one point per moment something changed.
func BusyCores(res *Result) []BusyPoint {
	type step struct {
		at    time.Time
		delta int
	}
	if res == nil {
		return nil
	}
	var steps []step
	for _, r := range res.Records {
		if !r.Start.IsZero() {
			steps = append(steps, step{r.Start, r.CPUs}, step{r.End, -r.CPUs})
		}
	}
	slices.SortStableFunc(steps, func(a, c step) int { return a.at.Compare(c.at) })
	var out []BusyPoint
	used := 0
	for k := 0; k < len(steps); {
		at := steps[k].at
		for ; k < len(steps) && steps[k].at.Equal(at); k++ {
			used += steps[k].delta // every change at one moment together
		}
		out = append(out, BusyPoint{at, used})
	}
	return out
}
