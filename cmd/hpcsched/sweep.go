package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hpcsched/hpcsched/sim"
)

const sweepUsage = `usage: hpcsched sweep plan DIR [simulate flags]
       hpcsched sweep run DIR [--task N]
       hpcsched sweep merge DIR

A sweep is simulate's runs (workloads x policies x seeds) spread over a
Slurm job array, one run per array task:

  plan   checks the simulate flags, writes DIR/sweep.json (the flags and the
         runs) and DIR/sweep.sbatch, a job-array script (#SBATCH --array=0-K)
         whose task N runs 'hpcsched sweep run DIR' (this binary, by its path)
  run    runs the task's run (--task, else SLURM_ARRAY_TASK_ID) and writes
         DIR/shards/N.json
  merge  reads every shard and prints and writes what simulate with the same
         flags prints and writes (its table, --json, --csv, --out files);
         a task whose run failed is named and left out, exit code 1, as
         simulate does with a failed run
`

// sweepPlan is DIR/sweep.json.
type sweepPlan struct {
	// Args are the simulate flags, as given to plan.
	Args []string `json:"args"`
	// Runs lists the runs, in the order of the array's task IDs.
	Runs []sweepRun `json:"runs"`
}

type sweepRun struct {
	Workload string `json:"workload"`
	Variant  string `json:"variant"`
	Seed     uint64 `json:"seed,omitempty"`
}

// sweepShard is DIR/shards/N.json: one run's outcome.
type sweepShard struct {
	Task int `json:"task"`
	// Run is the plan's run the task ran: a shard of another plan with
	// the same task number is found by it.
	Run    *sweepRun   `json:"run"`
	Row    row         `json:"row"`
	Result *sim.Result `json:"result,omitempty"` // the group's first run only, for its charts
	Error  string      `json:"error,omitempty"`
}

func sweepCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("sweep: want plan, run or merge\n%s", sweepUsage)
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, sweepUsage)
		return errHelp
	}
	if len(args) < 2 {
		return usagef("sweep %s: want a directory\n%s", args[0], sweepUsage)
	}
	if args[1] == "-h" || args[1] == "--help" {
		fmt.Fprint(stdout, sweepUsage)
		return errHelp
	}
	dir := args[1]
	if strings.HasPrefix(dir, "-") {
		// a flag where DIR goes: plan would make a directory named after it
		return usagef("sweep %s: want the directory before the flags, not %q\n%s", args[0], dir, sweepUsage)
	}
	switch args[0] {
	case "plan":
		return sweepPlanCmd(dir, args[2:], stdout)
	case "run":
		return sweepRunCmd(dir, args[2:], stderr)
	case "merge":
		if len(args) > 2 {
			return usagef("sweep merge: unexpected %q (the output flags are the plan's)", args[2])
		}
		return sweepMergeCmd(dir, stdout, stderr)
	}
	return usagef("sweep: unknown subcommand %q (plan, run, merge)", args[0])
}

func sweepPlanCmd(dir string, simArgs []string, stdout io.Writer) error {
	f, err := parseSimFlags(simArgs, stdout)
	if err != nil {
		return err
	}
	cells, err := f.plan()
	if err != nil {
		return err
	}
	// what a local run refuses before running: the tasks would each fail
	// on it, or overwrite one another's --jobs file
	if err := f.checkInputs(cells); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usagef("%v", err)
	}
	if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 {
		return usagef("sweep plan: %s is not empty", dir)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("sweep plan: this program's path: %w", err)
	}
	// the tasks run where the plan was made, so that relative paths in
	// the flags (traces, --conf, --jobs) name the same files
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("sweep plan: the working directory: %w", err)
	}
	if strings.ContainsAny(cwd+abs, "\n\r") {
		return usagef("sweep plan: a path with a line break cannot go in an #SBATCH line: %q", cwd+" "+abs)
	}
	plan := sweepPlan{Args: append([]string{}, simArgs...)}
	for _, c := range cells {
		plan.Runs = append(plan.Runs, runOf(c))
	}
	if err := os.MkdirAll(filepath.Join(abs, "shards"), 0o755); err != nil {
		return usagef("%v", err)
	}
	if err := os.MkdirAll(filepath.Join(abs, "logs"), 0o755); err != nil {
		return usagef("%v", err)
	}
	data, _ := json.MarshalIndent(plan, "", "  ")
	if err := os.WriteFile(filepath.Join(abs, "sweep.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	script := fmt.Sprintf(`#!/bin/bash
# %d runs of: hpcsched simulate %s
# Submit with: sbatch %s
# then: %s sweep merge %s
#SBATCH --job-name=hpcsched-sweep
#SBATCH --array=0-%d
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=%s/%%A_%%a.out
#SBATCH --chdir=%s
exec %s sweep run %s
`, len(cells), shellJoin(simArgs), shellQuote(filepath.Join(abs, "sweep.sbatch")), shellQuote(exe), shellQuote(abs),
		len(cells)-1, filepath.Join(abs, "logs"), cwd, shellQuote(exe), shellQuote(abs))
	if err := os.WriteFile(filepath.Join(abs, "sweep.sbatch"), []byte(script), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d runs: sbatch %s, then hpcsched sweep merge %s\n", len(cells), filepath.Join(abs, "sweep.sbatch"), abs)
	return nil
}

// readSweep reads a plan and lists its runs again from its flags.
func readSweep(dir string, stdout io.Writer) (*simFlags, []cell, error) {
	data, err := readBounded(filepath.Join(dir, "sweep.json"), maxPlanBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, usagef("sweep: %v (run 'hpcsched sweep plan' first)", err)
	} else if err != nil {
		return nil, nil, usagef("sweep: %v", err)
	}
	var plan sweepPlan
	if err := json.Unmarshal(data, &plan); err != nil {
		return nil, nil, usagef("sweep: %s: %v", filepath.Join(dir, "sweep.json"), err)
	}
	f, err := parseSimFlags(plan.Args, stdout)
	if err != nil {
		return nil, nil, err
	}
	cells, err := f.plan()
	if err != nil {
		return nil, nil, err
	}
	if len(cells) != len(plan.Runs) {
		return nil, nil, usagef("sweep: %s lists %d runs, its flags give %d", filepath.Join(dir, "sweep.json"), len(plan.Runs), len(cells))
	}
	for i, c := range cells {
		// an edited plan: the tasks would run what its flags say, and
		// the shards be merged as the runs it lists
		if got := runOf(c); got != plan.Runs[i] {
			return nil, nil, usagef("sweep: %s lists task %d as %s %s seed %d, its flags give %s %s seed %d",
				filepath.Join(dir, "sweep.json"), i, plan.Runs[i].Workload, plan.Runs[i].Variant, plan.Runs[i].Seed, got.Workload, got.Variant, got.Seed)
		}
	}
	return f, cells, nil
}

// runOf is the plan's entry for cell c.
func runOf(c cell) sweepRun {
	r := sweepRun{Workload: c.workload, Variant: c.variant.String()}
	if c.seeded {
		r.Seed = c.seed
	}
	return r
}

func sweepRunCmd(dir string, args []string, stderr io.Writer) error {
	task := os.Getenv("SLURM_ARRAY_TASK_ID")
	switch {
	case len(args) == 2 && args[0] == "--task":
		task = args[1]
	case len(args) == 1 && strings.HasPrefix(args[0], "--task="):
		task = strings.TrimPrefix(args[0], "--task=")
	case len(args) > 0:
		return usagef("sweep run: unexpected %q (want --task N)", strings.Join(args, " "))
	}
	f, cells, err := readSweep(dir, io.Discard)
	if err != nil {
		return err
	}
	i, err := strconv.Atoi(task)
	if err != nil || i < 0 || i >= len(cells) {
		return usagef("sweep run: task %q: want 0-%d (--task or SLURM_ARRAY_TASK_ID)", task, len(cells)-1)
	}
	// the plan refused --jobs files that existed (without --force): one
	// there now is this task's own, left by an attempt Slurm killed or
	// requeued, or by a run the user repeats, and must not stop the rerun
	f.quiet, f.parallel, f.force = true, 1, true
	// the shard's folder, made before the run, not found missing after it
	if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
		return usagef("sweep run: %v", err)
	}
	res, r, err := f.runOne(cells[i], nil)
	run := runOf(cells[i])
	shard := sweepShard{Task: i, Run: &run, Row: r}
	if err != nil {
		shard.Error = err.Error()
	} else if cells[i].first {
		shard.Result = res
	}
	data, jerr := json.Marshal(shard)
	if jerr != nil {
		return jerr
	}
	path := filepath.Join(dir, "shards", strconv.Itoa(i)+".json")
	if werr := os.WriteFile(path+".tmp", data, 0o644); werr != nil {
		return fmt.Errorf("sweep run: %w", werr)
	}
	if rerr := os.Rename(path+".tmp", path); rerr != nil {
		return fmt.Errorf("sweep run: %w", rerr)
	}
	return err
}

func sweepMergeCmd(dir string, stdout, stderr io.Writer) error {
	f, cells, err := readSweep(dir, stdout)
	if err != nil {
		return err
	}
	outs := make([]cellOut, len(cells))
	var missing []string
	for i := range cells {
		data, err := readBounded(filepath.Join(dir, "shards", strconv.Itoa(i)+".json"), maxShardBytes)
		if errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, strconv.Itoa(i))
			continue
		} else if err != nil {
			return fmt.Errorf("sweep merge: shard %d: %w", i, err)
		}
		sh, err := readShard(data, i, runOf(cells[i]))
		if err != nil {
			return fmt.Errorf("sweep merge: %s: %w", filepath.Join(dir, "shards", strconv.Itoa(i)+".json"), err)
		}
		outs[i] = cellOut{res: sh.Result, row: sh.Row}
		if sh.Error != "" {
			outs[i].err = fmt.Errorf("sweep task %d: %s", i, sh.Error) // the collector names the run
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("sweep merge: %d of %d tasks have no shard yet: %s (rerun them with sbatch --array=%s)",
			len(missing), len(cells), strings.Join(missing, ","), strings.Join(missing, ","))
	}
	if err := strayShards(dir, len(cells)); err != nil {
		return err
	}
	// --svg and --out files a merge before this one wrote: refused before
	// the table is printed, as simulate refuses them before its runs (the
	// --jobs files are the tasks' own, there by now)
	charts := *f
	charts.jobs = ""
	if err := charts.checkOutputs(cells); err != nil {
		return err
	}
	return f.report(cells, outs, stdout, stderr)
}

// readShard decodes task i's shard: it must name task i and the plan's
// run for it (a shard of another plan, copied in, would otherwise stand
// for this plan's run), and hold its row ("{}" would pass as task 0 with
// an empty row).
func readShard(data []byte, i int, want sweepRun) (sweepShard, error) {
	var sh sweepShard
	var keys struct {
		Task *int            `json:"task"`
		Row  json.RawMessage `json:"row"`
	}
	if err := json.Unmarshal(data, &keys); err != nil {
		return sh, fmt.Errorf("not a shard: %v", err)
	}
	if keys.Task == nil || len(keys.Row) == 0 {
		return sh, errors.New("not a shard: no task or no row")
	}
	if *keys.Task != i {
		return sh, fmt.Errorf("holds task %d's run, not task %d's (a copy or a rename?)", *keys.Task, i)
	}
	if err := json.Unmarshal(data, &sh); err != nil {
		return sh, fmt.Errorf("not a shard: %v", err)
	}
	switch {
	case sh.Run == nil:
		return sh, fmt.Errorf("names no run (written by another version of hpcsched?): rerun task %d", i)
	case *sh.Run != want:
		return sh, fmt.Errorf("holds the run %s %s seed %d, not this plan's task %d, %s %s seed %d (a shard of another sweep?)",
			sh.Run.Workload, sh.Run.Variant, sh.Run.Seed, i, want.Workload, want.Variant, want.Seed)
	}
	return sh, nil
}

// strayShards refuses a shard file of a task the plan does not have
// (shards of another plan put here): a merge would leave it out unseen.
func strayShards(dir string, tasks int) error {
	entries, err := os.ReadDir(filepath.Join(dir, "shards"))
	if err != nil {
		return fmt.Errorf("sweep merge: %w", err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(name); err != nil || n >= tasks || strconv.Itoa(n) != name {
			return fmt.Errorf("sweep merge: %s is no task's shard (the plan has tasks 0-%d)", filepath.Join(dir, "shards", e.Name()), tasks-1)
		}
	}
	return nil
}

// The budgets of a sweep's files, checked while reading: a plan lists
// its runs (about 100 bytes each), a shard holds one run's row and, for
// a group's first run, its result with the per-job records its charts
// draw (a few hundred bytes a job).
const (
	maxPlanBytes  = 64 << 20
	maxShardBytes = 1 << 30
)

// readBounded reads a regular file of at most limit bytes; a device, a
// pipe or a longer file is an error before more than limit bytes are read.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: longer than %d bytes", path, limit)
	}
	return data, nil
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
