package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
)

// jobsWriter writes --jobs: one line per job, in submit order, as records
// arrive (in end order) from the replay. A record waits only for the
// jobs submitted before it to end, so it holds about the queue, not the
// trace.
type jobsWriter struct {
	w       *bufio.Writer
	file    *os.File // a temporary file beside path, renamed to it when the run ends well (unless direct)
	path    string
	direct  bool // path is a link, a device or a pipe, written in place
	swf     bool
	c       *selectnodes.Cluster
	epoch   time.Time
	next    int
	held    map[int]sim.Record
	err     error
	names   []string       // scratch
	line    []byte         // scratch
	parts   map[string]int // an SWF's partition numbers (field 16), by name
	written int
}

// jobsPath is --jobs's file for one run of several: "-<run>" before the
// extension ("jobs-KTH-fcfs-easy.csv").
func jobsPath(path string, res *sim.Result, runs int) string {
	if runs <= 1 {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + strings.TrimSuffix(fileName(res), ".svg") + ext
}

func newJobsWriter(path string, c *selectnodes.Cluster, force bool) (*jobsWriter, error) {
	swf := strings.EqualFold(filepath.Ext(path), ".swf")
	if !swf && !strings.EqualFold(filepath.Ext(path), ".csv") {
		return nil, usagef("simulate: --jobs %s: want a .csv or .swf file", path)
	}
	if _, err := os.Stat(path); err == nil && !force {
		return nil, usagef("simulate: %s exists; remove it or pass --force", path)
	}
	file, direct, err := createOutput(path)
	if err != nil {
		return nil, usagef("simulate: --jobs: %v", err)
	}
	jw := &jobsWriter{w: bufio.NewWriter(file), file: file, path: path, direct: direct, swf: swf, c: c, held: map[int]sim.Record{},
		epoch: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	return jw, nil
}

// header starts the file: SWF's header comments, or the CSV's column
// names. tr is the trace's header when the workload is a trace (else nil):
// its installation, start time and queues (which field 15 numbers) are
// given back.
func (jw *jobsWriter) header(run string, tr *sim.Trace) {
	if !jw.swf {
		fmt.Fprintln(jw.w, "id,name,user,submit_s,start_s,end_s,wait_s,run_s,nodes,cores,cpus,bounded_slowdown,end")
		return
	}
	cpus := 0
	for i := 0; i < jw.c.NodeCount(); i++ {
		cpus += jw.c.Node(i).CPUs
	}
	fmt.Fprintf(jw.w, "; Version: 2.2\n; Computer: hpcsched simulate (%s)\n", run)
	if tr != nil {
		traceHeader(jw.w, tr)
	}
	fmt.Fprintf(jw.w, "; MaxNodes: %d\n; MaxProcs: %d\n", jw.c.NodeCount(), cpus)
	jw.parts = map[string]int{}
	for k, name := range jw.c.PartitionNames() { // field 16 numbers them, so a replay of the file finds them
		jw.parts[name] = k + 1
		fmt.Fprintf(jw.w, "; Partition: %d %s\n", k+1, name)
	}
	if tr != nil {
		io.WriteString(jw.w, traceNotes)
		return
	}
	fmt.Fprintln(jw.w, "; Note: fields 3 (wait) and 4 (run time) are the simulation's; 5 is the CPUs allocated, 8 and 9 what was asked for")
	fmt.Fprintln(jw.w, "; Note: status 1 completed, 0 killed at its time limit or failed, -1 never started; unknown fields -1")
}

// traceHeader gives back the header lines of the trace that its kept
// fields need: the start time field 2 counts from, the queues field 15
// numbers (in their numbers' order), and where the trace was recorded.
func traceHeader(w io.Writer, tr *sim.Trace) {
	if tr.Installation != "" {
		fmt.Fprintf(w, "; Installation: %s\n", tr.Installation)
	}
	if tr.UnixStart != 0 {
		fmt.Fprintf(w, "; UnixStartTime: %d\n", tr.UnixStart)
	}
	for _, k := range slices.Sorted(maps.Keys(tr.Queues)) {
		fmt.Fprintf(w, "; Queue: %d %s\n", k, tr.Queues[k])
	}
}

// traceNotes end the header of an SWF written from a trace's replay.
const traceNotes = `; Note: fields 3 (wait), 4 (run time), 5 (CPUs allocated), 11 (status) and 16 (partition) are the simulation's; the other standard fields are the trace's, as it wrote them
; Note: status 1 completed, 0 killed at its time limit or failed, -1 never started
; Note: fields 6 (average CPU time) and 7 (used memory) measure the trace's run: kept for a job that ran its whole run time here (status 1), -1 for one killed at its time limit or never started
`

// add takes one final record (Options.OnRecord).
func (jw *jobsWriter) add(rec sim.Record) {
	jw.held[rec.Seq] = rec
	for {
		r, ok := jw.held[jw.next]
		if !ok {
			return
		}
		delete(jw.held, jw.next)
		jw.next++
		if jw.err == nil {
			jw.write(&r)
		}
	}
}

func (jw *jobsWriter) write(r *sim.Record) {
	jw.written++
	switch {
	case jw.swf && r.SWF != nil:
		jw.writeTraceSWF(r)
	case jw.swf:
		jw.writeSWF(r)
	default:
		jw.writeCSV(r)
	}
}

// sec is t in seconds since the writer's epoch, "" for the zero time.
func (jw *jobsWriter) sec(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatFloat(t.Sub(jw.epoch).Seconds(), 'f', -1, 64)
}

// simulated are the SWF fields the replay decides: the wait (3), the run
// time (4), the CPUs allocated (5), the status (11) and the partition
// (16); -1 for the first three and the status of a job that never
// started, -1 for the cluster's default partition.
func (jw *jobsWriter) simulated(r *sim.Record) (wait, run string, cpus, status, part int) {
	wait, run, cpus, status = "-1", "-1", -1, -1
	if !r.Start.IsZero() {
		wait = strconv.FormatFloat(r.Start.Sub(r.Submit).Seconds(), 'f', -1, 64)
		run = strconv.FormatFloat(r.End.Sub(r.Start).Seconds(), 'f', -1, 64)
		cpus, status = r.CPUs, 0
		if r.State == queue.Complete {
			status = 1
		}
	}
	part, ok := jw.parts[r.Partition]
	if !ok {
		part = -1 // the default partition
	}
	return wait, run, cpus, status, part
}

// writeSWF writes a generated job's SWF line: its number and user from
// its name ("swf12", "u3") when it has them, -1 for what is not known.
func (jw *jobsWriter) writeSWF(r *sim.Record) {
	id := int64(r.Seq + 1)
	if n, err := strconv.ParseInt(strings.TrimPrefix(r.Name, "swf"), 10, 64); err == nil && strings.HasPrefix(r.Name, "swf") {
		id = n
	}
	user, err := strconv.Atoi(strings.TrimPrefix(r.User, "u"))
	if err != nil || !strings.HasPrefix(r.User, "u") {
		user = -1
	}
	w, rt, cpus, status, part := jw.simulated(r)
	_, jw.err = fmt.Fprintf(jw.w, "%d %s %s %s %d -1 -1 %d %s -1 %d %d -1 -1 -1 %d -1 -1\n", id, jw.sec(r.Submit), w, rt, cpus,
		r.Cores, strconv.FormatFloat(r.TimeLimit.Seconds(), 'f', -1, 64), status, user, part)
}

// writeTraceSWF writes a trace job's SWF line: the fields the replay
// decides, and every other as the trace had it (r.SWF). The average CPU
// time and used memory (6, 7) measure the trace's run: a job killed here
// at its time limit, or never started, did not make that run, and they
// are -1.
func (jw *jobsWriter) writeTraceSWF(r *sim.Record) {
	f := r.SWF
	w, rt, cpus, status, part := jw.simulated(r)
	cpuTime, mem := f[5], f[6]
	if status != 1 {
		cpuTime, mem = -1, -1
	}
	b := jw.line[:0]
	num := func(v float64) { b = append(strconv.AppendFloat(b, v, 'f', -1, 64), ' ') }
	num(f[0])
	num(f[1])
	b = append(append(append(append(b, w...), ' '), rt...), ' ')
	num(float64(cpus))
	num(cpuTime)
	num(mem)
	for _, v := range f[7:10] { // requested processors, time and memory
		num(v)
	}
	num(float64(status))
	for _, v := range f[11:15] { // user, group, executable, queue
		num(v)
	}
	num(float64(part))
	num(f[16])
	num(f[17])
	b[len(b)-1] = '\n'
	jw.line = b
	_, jw.err = jw.w.Write(b)
}

// writeCSV writes a job's CSV line.
func (jw *jobsWriter) writeCSV(r *sim.Record) {
	started := !r.Start.IsZero()
	wait, run := r.Start.Sub(r.Submit), r.End.Sub(r.Start)
	waitS, runS, bsld, nodes := "", "", "", ""
	if started {
		waitS, runS = strconv.FormatFloat(wait.Seconds(), 'f', -1, 64), strconv.FormatFloat(run.Seconds(), 'f', -1, 64)
		bsld = strconv.FormatFloat(sim.BoundedSlowdown(wait, run), 'f', 4, 64)
		jw.names = jw.names[:0]
		for _, i := range r.Nodes {
			jw.names = append(jw.names, jw.c.Node(i).Name)
		}
		nodes = hostlist.Compress(jw.names)
	}
	cw := csv.NewWriter(jw.w)
	jw.err = cw.Write([]string{strconv.FormatUint(uint64(r.Job), 10), r.Name, r.User, jw.sec(r.Submit), jw.sec(r.Start), jw.sec(r.End),
		waitS, runS, nodes, strconv.Itoa(r.Cores), strconv.Itoa(r.CPUs), bsld, endReason(r)})
	cw.Flush()
}

// endReason is how a job's record ended: COMPLETE, TIMEOUT, FAILED (never
// ran here) or PENDING (still waiting when nothing else could happen).
func endReason(r *sim.Record) string { return r.State.String() }

// createOutput opens a file --jobs, --svg or --out writes. A regular
// file (or none) is written beside its name and renamed at the end: a
// run that fails leaves no half file, and the file --force would have
// replaced stays as it was. A link, a device or a pipe the user named is
// written in place (direct).
func createOutput(path string) (_ *os.File, direct bool, _ error) {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		file, err := os.Create(path)
		return file, true, err
	}
	file, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, false, err
	}
	if err := file.Chmod(0o644); err != nil {
		file.Close()
		os.Remove(file.Name())
		return nil, false, err
	}
	return file, false, nil
}

// finish ends the file: under its name when the run ended well (runErr
// nil), else removed (a failed run's records stop short: a file of them
// would pass for a whole run's). It returns runErr, else its own error.
func (jw *jobsWriter) finish(runErr error) error {
	err := jw.close()
	if jw.direct {
		if runErr != nil {
			return runErr
		}
		return err
	}
	if runErr == nil && err == nil {
		err = os.Rename(jw.file.Name(), jw.path)
	}
	if runErr != nil || err != nil {
		os.Remove(jw.file.Name())
	}
	if runErr != nil {
		return runErr
	}
	return err
}

// close flushes the file; every record must have arrived.
func (jw *jobsWriter) close() error {
	if jw.err == nil && len(jw.held) > 0 {
		jw.err = fmt.Errorf("simulate: --jobs: %d records never completed the submit order", len(jw.held))
	}
	if err := jw.w.Flush(); jw.err == nil {
		jw.err = err
	}
	if err := jw.file.Close(); jw.err == nil {
		jw.err = err
	}
	return jw.err
}
