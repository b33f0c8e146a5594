package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// ledgerFile is simulate --ledger's input: projects with one allocation
// each, and who submits under which project.
//
//	{"projects": [{"name": "physics", "gid": 1001, "resource": "CPU", "credit": 5000000}],
//	 "users": {"u12": "physics"}, "default": "physics",
//	 "partitions": {"gpu": "GPU"}, "on_short": "fail"}
//
// A project's allocation runs for the whole replay; credit is in service
// units (core-minutes, or GPU-minutes for a GPU resource). Users not
// listed submit under default. Partitions not listed bill CPUs. on_short
// is what a job the balance cannot cover gets: "fail" (the default, so a
// replay ends) or "hold".
type ledgerFile struct {
	Projects []struct {
		Name     string `json:"name"`
		GID      uint32 `json:"gid"`
		Resource string `json:"resource"`
		Credit   int64  `json:"credit"`
	} `json:"projects"`
	Users      map[string]string `json:"users"`
	Default    string            `json:"default"`
	Partitions map[string]string `json:"partitions"`
	OnShort    string            `json:"on_short"`
}

// ledgerReport is what a replay did to the ledger.
type ledgerReport struct {
	Refused  int             `json:"refused"`
	Projects []projectReport `json:"projects"`
}

type projectReport struct {
	Project string `json:"project"`
	SUUsed  int64  `json:"su_used"`
	Balance int64  `json:"balance"`
}

// simLedger is a fresh ledger for one run, with the plugin that wires it in.
type simLedger struct {
	l     *allocation.Ledger
	names map[allocation.AllocationID]string
}

// maxLedgerBytes bounds --ledger's file (a ledger of thousands of
// projects and users is a few hundred KB); it is checked while reading.
const maxLedgerBytes = 16 << 20

func readLedgerFile(path string) (*ledgerFile, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, usagef("--ledger: %v", err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxLedgerBytes+1))
	if err != nil {
		return nil, usagef("--ledger %s: %v", path, err)
	}
	if len(data) > maxLedgerBytes {
		return nil, usagef("--ledger %s: more than %d bytes; a ledger file is a few projects and users", path, maxLedgerBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var lf ledgerFile
	if err := dec.Decode(&lf); err == io.EOF {
		return nil, usagef("--ledger %s: empty; want a JSON object of projects", path)
	} else if err == io.ErrUnexpectedEOF {
		return nil, usagef("--ledger %s: the JSON object ends early (a file cut short?)", path)
	} else if err != nil {
		return nil, usagef("--ledger %s: %s%v", path, jsonPlace(data, err), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		// a second ledger pasted after the first was dropped unseen
		return nil, usagef("--ledger %s: %smore after the ledger's JSON object", path, linePlace(data, dec.InputOffset()))
	}
	if len(lf.Projects) == 0 {
		return nil, usagef("--ledger %s: no projects", path)
	}
	return &lf, nil
}

// newLedger builds the run's ledger and its queue option.
func (lf *ledgerFile) newLedger(c *selectnodes.Cluster) (*simLedger, queue.Option, error) {
	ctx, store := context.Background(), allocation.NewMemStore()
	parts := map[string]allocation.Partition{}
	for _, name := range c.PartitionNames() {
		parts[name] = allocation.Partition{Resource: allocation.CPU}
	}
	for name, r := range lf.Partitions {
		parts[name] = allocation.Partition{Resource: allocation.Resource(strings.ToUpper(r))}
	}
	sl := &simLedger{l: allocation.New(store, allocation.WithPartitions(parts)), names: map[allocation.AllocationID]string{}}
	from, to := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	for k, p := range lf.Projects {
		proj, err := store.CreateProject(ctx, allocation.Project{Name: p.Name, GID: p.GID, Account: p.Name})
		if err != nil {
			return nil, nil, usagef("--ledger: projects[%d]: %v", k, err)
		}
		res := allocation.Resource(strings.ToUpper(cmp.Or(p.Resource, "CPU")))
		a, err := store.CreateAllocation(ctx, allocation.Allocation{Project: proj.ID, Category: "simulation", Resource: res, Start: from, End: to})
		if err != nil {
			return nil, nil, usagef("--ledger: projects[%d]: %v", k, err)
		}
		if _, err := store.Credit(ctx, a.ID, p.Credit, "simulate --ledger", from); err != nil {
			return nil, nil, usagef("--ledger: projects[%d]: %v", k, err)
		}
		sl.names[a.ID] = p.Name
	}
	onShort := queue.Fail
	if lf.OnShort == "hold" {
		onShort = queue.Hold
	}
	plugin := &allocation.QueuePlugin{Ledger: sl.l, OnShort: onShort, Workgroup: func(user string) (string, bool) {
		if g, ok := lf.Users[user]; ok {
			return g, true
		}
		return lf.Default, lf.Default != ""
	}}
	return sl, queue.WithPlugins(defaultPartition(c.DefaultPartition()), plugin), nil
}

// defaultPartition is an AdmitPlugin that names the default partition for
// jobs that give none, as sbatch does before the ledger's submit filter
// (which wants exactly one partition) sees them.
type defaultPartition string

func (defaultPartition) Name() string { return "default-partition" }

func (d defaultPartition) Admit(_ context.Context, spec *queue.Spec, _ time.Time) *queue.Status {
	if spec.Request.Partition == "" {
		spec.Request.Partition = string(d)
	}
	return nil
}

// report reads the ledger after the run.
func (sl *simLedger) report() *ledgerReport {
	ctx := context.Background()
	r := &ledgerReport{Projects: []projectReport{}}
	if f, err := sl.l.Failures(ctx); err == nil {
		r.Refused = len(f)
	}
	bs, _ := sl.l.Balances(ctx)
	for _, b := range bs {
		r.Projects = append(r.Projects, projectReport{Project: sl.names[b.Allocation], SUUsed: b.Used(), Balance: b.Balance})
	}
	slices.SortFunc(r.Projects, func(a, b projectReport) int { return strings.Compare(a.Project, b.Project) })
	return r
}

// writeLedgerNotes prints each run's ledger outcome.
func writeLedgerNotes(w io.Writer, rows []row) {
	for _, r := range rows {
		if r.Ledger == nil {
			continue
		}
		fmt.Fprintf(w, "%s %s: ledger refused %d jobs (insufficient balance)\n", r.Workload, r.label(), r.Ledger.Refused)
		for _, p := range r.Ledger.Projects {
			fmt.Fprintf(w, "  %-16s %12d SU used %12d SU left\n", p.Project, p.SUUsed, p.Balance)
		}
	}
}

// jsonPlace is "line L: " of a JSON error that knows its offset in data,
// else "".
func jsonPlace(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return linePlace(data, se.Offset)
	case errors.As(err, &te):
		return linePlace(data, te.Offset)
	}
	return ""
}

// linePlace is "line L: " of byte offset off in data.
func linePlace(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	return fmt.Sprintf("line %d: ", bytes.Count(data[:off], []byte("\n"))+1)
}
