package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hpcsched/hpcsched/federation"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
)

// simulateOrGrid is `hpcsched simulate`: with --grid it replays the
// workload on a grid of clusters (package federation), else on one.
func simulateOrGrid(args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "grid" {
			if slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "--help" }) {
				args = []string{"--help"} // "--grid --help" would read --help as the grid's files
			}
			return gridSimulate(args, stdout, stderr)
		}
	}
	return simulate(args, stdout, stderr)
}

// gridSide is one mode's line of grid output.
type gridSide struct {
	Jobs      int            `json:"jobs"`
	Completed int            `json:"completed"`
	Rejected  int            `json:"rejected"`
	Stuck     int            `json:"stuck"`
	MeanWait  float64        `json:"mean_wait_s"`
	Moves     int            `json:"moves"`
	PerMember map[string]int `json:"per_member"`
}

type gridReport struct {
	Workload string   `json:"workload"`
	Members  []string `json:"members"`
	Pin      string   `json:"pinned_by"`
	Grid     gridSide `json:"grid"`
	Pinned   gridSide `json:"pinned"`
	// Note explains a difference in completed jobs.
	Note string `json:"note,omitempty"`
}

func gridSimulate(args []string, stdout, stderr io.Writer) error {
	var (
		grid, workload, policyName, pin   string
		backfill, asJSON, quiet, progress bool
		seed                              uint64
		period, threshold                 time.Duration
		limit, parallel                   int
	)
	fs := newFlagSet("simulate --grid", "[flags]")
	fs.String(&grid, "grid=CONFS", "", "slurm.conf files of the grid's members, comma-separated")
	fs.String(&workload, "workload=SPEC", "aucsched:6", "aucsched:ID (sized for the smallest member) or an SWF trace path")
	fs.String(&policyName, "policy=NAME", "fcfs", "fcfs, sjf, ljf or multifactor")
	fs.Bool(&backfill, "backfill", "run backfill after every scheduling pass")
	fs.Uint64(&seed, "seed", 1, "seed of the generated workloads")
	fs.Duration(&period, "interval", time.Minute, "the grid's re-evaluation period (virtual time)")
	fs.Duration(&threshold, "threshold", 5*time.Minute, "how much sooner another member must start a job to move it")
	fs.String(&pin, "pin=MODE", "auto", "how the pinned run assigns jobs: roundrobin, partition (an SWF trace's partition field), or auto")
	fs.Int(&limit, "limit", 0, "replay only the first N jobs (0 for all): a generated workload's, or a trace's first N jobs kept, in line order (the jobs it leaves out do not count)")
	fs.Int(&parallel, "j,jobs-parallel", 1, "2 runs the grid and the pinned replay at once (the output is the same as with -j 1)")
	fs.Bool(&asJSON, "json", "print JSON")
	fs.Bool(&quiet, "q,quiet", "no progress on stderr")
	fs.Bool(&progress, "progress", "say which replay runs on stderr even when it is not a terminal")
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	if parallel < 1 {
		return usagef("simulate --grid: -j %d: want at least 1", parallel)
	}
	// federation holds a period under a second to one and takes a
	// negative threshold as it is: said here instead
	switch {
	case period < 0 || (period > 0 && period < time.Second):
		return usagef("simulate --grid: --interval %v: want 0 (a minute) or at least 1s", period)
	case threshold < 0:
		return usagef("simulate --grid: --threshold %v: want 0 (5 minutes) or more", threshold)
	case strings.Contains(workload, ","):
		return usagef("simulate --grid: --workload %s: a grid replays one workload", workload)
	}
	policy, err := parsePolicy(policyName)
	if err != nil {
		return err
	}
	members, err := gridMembers(grid)
	if err != nil {
		return err
	}
	w, pinFn, pinName, err := gridWorkload(workload, members, seed, pin, limit)
	if err != nil {
		return err
	}
	o := federation.ReplayOptions{Backfill: backfill, Policy: policy, Period: period, Threshold: threshold, Pin: pinFn}
	rep := gridReport{Workload: w.Name, Pin: pinName}
	for _, m := range members {
		rep.Members = append(rep.Members, m.Name)
	}
	table := newGridTable(stdout, rep, len(w.Jobs))
	if asJSON {
		table = nil
	}
	status := gridStatus(stderr, quiet, progress)
	results, err := replayModes(members, w, o, parallel, status, table)
	if err != nil {
		return err
	}
	rep.Grid, rep.Pinned = side(results[0]), side(results[1])
	rep.Note = completedNote(results[0], results[1])
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if rep.Note != "" {
		fmt.Fprintln(stdout, "Note:", rep.Note)
	}
	return nil
}

// replayModes replays w in grid mode, then pinned, or both at once when
// parallel > 1; each mode's line is printed as soon as it and the lines
// before it are done.
func replayModes(members []federation.ClusterSpec, w *sim.Workload, o federation.ReplayOptions, parallel int,
	status func(string, ...any), table *gridTable) ([2]*federation.ReplayResult, error) {
	modes := [2]federation.Mode{federation.GridMode, federation.PinnedMode}
	var results [2]*federation.ReplayResult
	var errs [2]error
	if parallel > 1 {
		status("replaying %d jobs in grid and pinned mode at once", len(w.Jobs))
		var wg sync.WaitGroup
		done := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
		for k := range modes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(done[k])
				results[k], errs[k] = federation.Replay(members, w, o, modes[k])
			}()
		}
		for k := range modes {
			<-done[k]
			status("")
			err := errs[k]
			if err == nil {
				err = table.add(string(modes[k]), side(results[k]))
			}
			if err != nil {
				wg.Wait() // the other replay's result is written before it is returned
				return results, err
			}
			select {
			case <-done[1]:
			default:
				status("replaying %d jobs in pinned mode", len(w.Jobs))
			}
		}
		return results, nil
	}
	for k, mode := range modes {
		status("replaying %d jobs in %s mode", len(w.Jobs), mode)
		results[k], errs[k] = federation.Replay(members, w, o, mode)
		status("")
		if errs[k] != nil {
			return results, errs[k]
		}
		if err := table.add(string(mode), side(results[k])); err != nil {
			return results, err
		}
	}
	return results, nil
}

// gridStatus shows which replay runs, on stderr when it is a terminal
// (or with --progress), redrawn in place ("" clears it).
func gridStatus(stderr io.Writer, quiet, progress bool) func(format string, args ...any) {
	if quiet || !(progress || isTerminal(stderr)) {
		return func(string, ...any) {}
	}
	if !isTerminal(stderr) {
		return func(format string, args ...any) {
			if format != "" {
				fmt.Fprintf(stderr, "simulate --grid: "+format+"\n", args...)
			}
		}
	}
	return func(format string, args ...any) {
		fmt.Fprintf(stderr, "\r\033[K")
		if format != "" {
			fmt.Fprintf(stderr, "simulate --grid: "+format, args...)
		}
	}
}

func side(r *federation.ReplayResult) gridSide {
	return gridSide{Jobs: r.Jobs, Completed: r.Completed, Rejected: r.Rejected, Stuck: r.Stuck,
		MeanWait: r.MeanWait.Seconds(), Moves: r.Moves, PerMember: r.PerMember}
}

// completedNote explains why the two runs completed different counts.
func completedNote(g, p *federation.ReplayResult) string {
	if g.Completed == p.Completed {
		return ""
	}
	var parts []string
	if d := p.Rejected - g.Rejected; d > 0 {
		parts = append(parts, fmt.Sprintf("%d jobs were pinned to a member that can never run them; the grid placed them on one that can", d))
	}
	if d := g.Rejected - p.Rejected; d > 0 {
		parts = append(parts, fmt.Sprintf("the grid refused %d more jobs than the pinned run", d))
	}
	if p.Stuck != g.Stuck {
		parts = append(parts, fmt.Sprintf("stuck jobs (accepted, never started): grid %d, pinned %d", g.Stuck, p.Stuck))
	}
	return strings.Join(parts, "; ")
}

// gridMembers reads the members' slurm.conf files.
func gridMembers(list string) ([]federation.ClusterSpec, error) {
	if strings.TrimSpace(list) == "" {
		return nil, usagef("simulate: --grid needs slurm.conf files, comma-separated")
	}
	var out []federation.ClusterSpec
	seen := map[string]int{}
	for _, path := range strings.Split(list, ",") {
		path = strings.TrimSpace(path)
		cfg, err := readConf(path)
		if err != nil {
			return nil, usagef("%v", err)
		}
		c, err := selectnodes.FromConfig(cfg)
		if err != nil {
			return nil, usagef("%s: %v", path, err)
		}
		if c.NodeCount() == 0 || c.PartitionCount() == 0 {
			// a topology.conf or a gres.conf: a member no job could use
			return nil, usagef("simulate --grid: %s defines no node or no partition: is it a whole slurm.conf?", path)
		}
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".conf"), ".slurm")
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		out = append(out, federation.ClusterSpec{Name: name, Build: func() (*selectnodes.Cluster, error) {
			return selectnodes.FromConfig(cfg)
		}})
	}
	return out, nil
}

// gridWorkload builds the workload and the pinned run's assignment.
// gridWorkload is the grid's workload, its first limit jobs when limit >
// 0 (a trace's as simulate's --limit takes them).
func gridWorkload(workload string, members []federation.ClusterSpec, seed uint64, pin string, limit int) (*sim.Workload, func(int, sim.Job) int, string, error) {
	if pin != "auto" && pin != "roundrobin" && pin != "partition" {
		return nil, nil, "", usagef("simulate: --pin must be auto, roundrobin or partition")
	}
	first, err := members[0].Build()
	if err != nil {
		return nil, nil, "", usagef("%v", err)
	}
	if id, ok := strings.CutPrefix(workload, "aucsched:"); ok {
		if pin == "partition" {
			return nil, nil, "", usagef("simulate: --pin partition needs an SWF trace")
		}
		nodes, cores := 0, 0
		for _, m := range members {
			c, err := m.Build()
			if err != nil {
				return nil, nil, "", usagef("%v", err)
			}
			if nodes == 0 || c.NodeCount() < nodes {
				nodes = c.NodeCount()
			}
			mc := 0
			for i := 0; i < c.NodeCount(); i++ {
				mc = max(mc, c.Node(i).CPUs)
			}
			if cores == 0 || mc < cores {
				cores = mc
			}
		}
		w, err := sim.Generate(id, nodes, cores, seed)
		if err != nil {
			return nil, nil, "", usagef("%v", err)
		}
		if limit > 0 && limit < len(w.Jobs) {
			w.Jobs = w.Jobs[:limit]
		}
		return w, nil, "roundrobin", nil
	}
	abs, err := filepath.Abs(workload)
	if err != nil {
		return nil, nil, "", usagef("%v", err)
	}
	tr, err := sim.OpenSWF(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), sim.SWFOptions{})
	if err != nil {
		// named as given (the FS's error has only the base name)
		return nil, nil, "", usagef("simulate --grid: %s: %v", workload, withoutPath(err))
	}
	w := tr.WorkloadFirst(filepath.Base(workload), first, sim.Conventions{}, limit)
	byName := map[string]int{}
	usable := false
	for _, j := range tr.Jobs {
		byName[fmt.Sprintf("swf%d", j.ID)] = j.Partition
		usable = usable || j.Partition > 0
	}
	if pin == "roundrobin" || pin == "auto" && !usable {
		return w, nil, "roundrobin", nil
	}
	return w, func(i int, j sim.Job) int {
		if p := byName[j.Spec.Name]; p > 0 {
			return p - 1
		}
		return i
	}, "partition", nil
}

// gridTable prints the grid's table a line at a time, as each replay
// ends. Its columns are as wide as their headings (and the workload's
// job count): text/tabwriter's widths unless a count or the mean wait
// outgrows its heading, which then pushes its own line only.
type gridTable struct {
	w       io.Writer
	widths  []int
	started bool
	rep     gridReport
}

var gridHead = []string{"Mode", "Jobs", "Completed", "Rejected", "Stuck", "Mean wait (s)", "Moves", "Ran on"}

func newGridTable(w io.Writer, rep gridReport, jobs int) *gridTable {
	t := &gridTable{w: w, rep: rep, widths: make([]int, len(gridHead))}
	for i, h := range gridHead {
		t.widths[i] = len(h)
	}
	t.widths[0] = len("pinned")
	t.widths[1] = max(t.widths[1], len(strconv.Itoa(jobs))) // both lines
	return t
}

// add prints the title and heading first, then one mode's line.
func (t *gridTable) add(mode string, s gridSide) error {
	if t == nil {
		return nil
	}
	var b strings.Builder
	if !t.started {
		fmt.Fprintf(&b, "Workload %s on %s (pinned run: %s)\n", t.rep.Workload, strings.Join(t.rep.Members, ", "), t.rep.Pin)
		t.line(&b, gridHead)
		t.started = true
	}
	names := slices.Sorted(maps.Keys(s.PerMember))
	per := make([]string, len(names))
	for i, n := range names {
		per[i] = fmt.Sprintf("%s=%d", n, s.PerMember[n])
	}
	t.line(&b, []string{mode, strconv.Itoa(s.Jobs), strconv.Itoa(s.Completed), strconv.Itoa(s.Rejected),
		strconv.Itoa(s.Stuck), fmt.Sprintf("%.0f", s.MeanWait), strconv.Itoa(s.Moves), strings.Join(per, " ")})
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *gridTable) line(b *strings.Builder, cells []string) {
	(&rowPrinter{widths: t.widths}).line(b, cells)
}
