package selectnodes

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
)

// Groups returns the node sets as Slurm groups them: config records of
// equal weight and equal features are one node set whatever NodeName line
// they come from (Slurm 22.05 merges them before placing, which matters
// with a topology). The figures are summed, the removals summed per filter
// and reason, in the order of the first set of each group (weight order).
// A nil Explanation has none.
func (e *Explanation) Groups() []SetReport {
	if e == nil {
		return nil
	}
	var out []SetReport
	var parts [][]int // each group's sets (indices into e.Sets), merged once at the end
	index := map[string]int{}
	for i, s := range e.Sets {
		key := groupKey(s.Weight, s.Features)
		k, ok := index[key]
		if !ok {
			g := s
			g.Removed = slices.Clone(s.Removed)
			index[key] = len(out)
			out = append(out, g)
			parts = append(parts, []int{i})
			continue
		}
		g := &out[k]
		parts[k] = append(parts[k], i)
		g.Total += s.Total
		g.Candidates += s.Candidates
		g.Available += s.Available
		g.Usable += s.Usable
		for _, r := range s.Removed {
			if j := slices.IndexFunc(g.Removed, func(x Removal) bool { return x.Filter == r.Filter && x.Why == r.Why }); j >= 0 {
				g.Removed[j].Count += r.Count
			} else {
				g.Removed = append(g.Removed, r)
			}
		}
	}
	for k := range out {
		if len(parts[k]) > 1 {
			out[k].Nodes = e.mergeSets(parts[k])
		}
	}
	return out
}

// mergeSets writes the nodes of the sets e.Sets[i], i in sets, as one
// hostlist in set order. An explanation made by a cluster merges the
// records' node indices and compresses their names once, never holding
// the names as strings: the sets of a million scattered nodes are a few
// MB of hostlist but hundreds of MB as separate names. One built or edited
// by hand merges its hostlists.
func (e *Explanation) mergeSets(sets []int) string {
	var idx []int
	for _, i := range sets {
		s := e.Sets[i]
		if e.c == nil || s.record < 0 || s.record >= len(e.c.records) || len(e.c.records[s.record].nodes) != s.Total {
			idx = nil
			break
		}
		idx = append(idx, e.c.records[s.record].nodes...)
	}
	if idx != nil {
		return e.c.hostlistOf(idx)
	}
	lists := make([]string, len(sets))
	for k, i := range sets {
		lists[k] = e.Sets[i].Nodes
	}
	return mergeHostlists(lists)
}

// groupKey identifies the sets Slurm merges: equal weight and the same
// features compared as sets (order aside).
func groupKey(weight int64, features []string) string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(weight, 10))
	for _, f := range slices.Sorted(slices.Values(features)) {
		b.WriteByte(0)
		b.WriteString(f)
	}
	return b.String()
}

// mergeHostlists writes the hostlists of a group's sets as one, in set order:
// expanded and compressed once, so merging n sets costs their total size,
// not n times it (a one-name list is its own expansion). A group too large
// to expand keeps the lists joined.
func mergeHostlists(lists []string) string {
	var names []string
	for _, l := range lists {
		if !strings.ContainsAny(l, "[,") { // one name, the set of a one-node line
			names = append(names, l)
			continue
		}
		more, err := hostlist.Expand(l)
		if err != nil || len(names)+len(more) > hostlist.DefaultLimit {
			return strings.Join(lists, ",")
		}
		names = append(names, more...)
	}
	if len(names) > hostlist.DefaultLimit {
		return strings.Join(lists, ",")
	}
	return hostlist.Compress(names)
}

// featureList is ", features a,b" for a set's line, or nothing.
func featureList(fs []string) string {
	if len(fs) == 0 {
		return ""
	}
	return ", features " + strings.Join(fs, ",")
}

// explanationJSON is the JSON shape of an Explanation: plain fields, the
// class by its short name, node sets per config record and as Slurm groups
// them, and the placement as a hostlist.
type explanationJSON struct {
	Partition string          `json:"partition"`
	Mode      string          `json:"mode"`
	Counts    countsJSON      `json:"counts"`
	Sets      []setReportJSON `json:"sets"`
	Groups    []setReportJSON `json:"groups"`
	Steps     []string        `json:"steps"`
	Runnable  bool            `json:"runnable"`
	Class     string          `json:"class,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Nodes     string          `json:"nodes,omitempty"`
	CPUs      int             `json:"cpus,omitempty"`
	Weight    int64           `json:"weight,omitempty"`
}

type countsJSON struct {
	Min     int `json:"min"`
	Desired int `json:"desired"`
	Max     int `json:"max"` // 0: no maximum
	CPUs    int `json:"cpus"`
}

type setReportJSON struct {
	Nodes      string        `json:"nodes"`
	Weight     int64         `json:"weight"`
	Features   []string      `json:"features"`
	Total      int           `json:"total"`
	Removed    []removalJSON `json:"removed"`
	Candidates int           `json:"candidates"`
	Available  int           `json:"available"`
	Usable     int           `json:"usable"`
}

type removalJSON struct {
	Filter string `json:"filter"`
	Count  int    `json:"count"`
	Why    string `json:"why,omitempty"`
}

func setsJSON(sets []SetReport) []setReportJSON {
	out := make([]setReportJSON, 0, len(sets))
	for _, s := range sets {
		j := setReportJSON{Nodes: s.Nodes, Weight: s.Weight, Features: s.Features, Total: s.Total,
			Removed: []removalJSON{}, Candidates: s.Candidates, Available: s.Available, Usable: s.Usable}
		if j.Features == nil {
			j.Features = []string{}
		}
		for _, r := range s.Removed {
			j.Removed = append(j.Removed, removalJSON(r))
		}
		out = append(out, j)
	}
	return out
}

// MarshalJSON writes the structured explanation: per node set (and per
// group of sets), per filter, the counts, the steps and the outcome. A
// nil Explanation (a job that has none) is null, as String's is "no
// explanation".
func (e *Explanation) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	j := explanationJSON{Partition: e.Partition, Mode: e.Mode.String(),
		Counts: countsJSON{Min: e.Counts.Min, Desired: e.Counts.Desired, Max: e.Counts.Max, CPUs: e.Counts.CPUs},
		Sets:   setsJSON(e.Sets), Groups: setsJSON(e.Groups()), Steps: e.Steps, Reason: e.Reason}
	if j.Steps == nil {
		j.Steps = []string{}
	}
	if e.Class != nil {
		j.Class = ClassName(e.Class)
	} else if p := e.Placement; p != nil {
		j.Runnable, j.Nodes, j.CPUs, j.Weight = true, p.Hostlist(), p.TotalCPUs, p.Weight
	}
	return json.Marshal(j)
}
