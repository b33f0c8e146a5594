package sim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"github.com/hpcsched/hpcsched/position"
	"io"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// SWFJob is one job of a trace. Times are relative to the trace's first
// submission unless the trace says otherwise; -1 means unknown, as in SWF.
type SWFJob struct {
	Line      int // line number in the file
	ID        int64
	Submit    time.Duration // since the trace start
	Wait      time.Duration
	Run       time.Duration
	Procs     int // requested processors, else allocated
	Allocated int // allocated processors (field 5; -1 unknown)
	ReqTime   time.Duration
	ReqMemKB  int64
	Status    int
	User      int
	Queue     int
	Partition int
	// Extended (21-field) traces: the queue name and the PBS spec parsed.
	QueueName  string
	extended   bool     // the line had the 21 fields of the extended form
	Nodes      int      // PBS node count (0 when not given)
	PPN        int      // PBS processors per node (0 when not given)
	Properties []string // PBS node properties
	// Resources are the PBS spec's other "name=value" terms ("mem=3gb"),
	// which are not node properties; the replay does not model them.
	Resources []string
	// Avoid are the PBS spec's negated terms ("^zewura12.cerit-sc.cz",
	// "^cl_zewura"), without the caret: hosts (short names) or properties
	// the job's nodes must not have.
	Avoid     []string
	Exclusive bool
	// Procs2 is the processors the PBS spec asks for (nodes x ppn summed
	// over its chunks).
	Procs2 int
	// Host is a node the PBS spec names instead of a count
	// ("zewura19.cerit-sc.cz:ppn=12"), without its domain.
	Host string
	// Fields are the line's 18 standard fields as read, those above
	// included, when the trace is read under SWFOptions.KeepFields (else
	// nil). Immutable: the jobs of a replay share them (Job.SWF).
	Fields *SWFFields
}

// Trace is a parsed SWF file.
type Trace struct {
	MaxNodes, MaxProcs int
	// MaxNodesLine and MaxProcsLine are the header lines that gave them
	// (0 when absent), so a budget error can say where.
	MaxNodesLine, MaxProcsLine int
	UnixStart                  int64
	// Computer and Installation are the header's free text ("IBM SP2",
	// "Swedish Royal Institute of Technology (KTH)"), for titles.
	Computer, Installation string
	Queues                 map[int]string // "; Queue: 1 batch"
	Partitions             map[int]string // "; Partition: 1 DEFAULT"
	Jobs                   []SWFJob
	// Skipped counts lines dropped under SkipMalformed.
	Skipped int
}

// SWFOptions tunes ReadSWF.
type SWFOptions struct {
	// SkipMalformed drops bad lines (counted in Trace.Skipped) instead of
	// failing on the first.
	SkipMalformed bool
	// MaxBytes is the budget on the (decompressed) input:
	// DefaultMaxTraceBytes when 0 or negative. Reading stops with ErrBudget past it,
	// so a small gzip of gigabytes of blank lines costs at most this much.
	MaxBytes int64
	// KeepFields gives each job its line's 18 fields (SWFJob.Fields, then
	// the Job.SWF and Record.SWF of its replay), for a writer that gives
	// back what a replay does not decide. Off, a job carries none, and
	// reading allocates nothing per line.
	KeepFields bool
}

// Budgets of the readers (see the package doc).
const (
	// DefaultMaxTraceBytes bounds a trace's decompressed size (the largest
	// archive trace in the shared data is 2.6 MB; the biggest public SWF
	// logs are a few hundred MB).
	DefaultMaxTraceBytes = 512 << 20
	// MaxClusterNodes bounds the nodes of a cluster built from a trace
	// header or a machines file, and a PBS spec's node count.
	MaxClusterNodes = 1 << 20
	// MaxSWFSeconds bounds every time field of a trace (about 136 years),
	// so that it converts to a time.Duration and sums without overflow.
	MaxSWFSeconds = 1 << 32
	// maxSWFCount bounds processor, user, queue and similar counts.
	maxSWFCount = math.MaxInt32
)

// ErrBudget is matched (errors.Is) by every error that reports an input
// over one of the package's budgets.
var ErrBudget = errors.New("over budget")

// SWFError is a malformed line.
type SWFError struct {
	Line int
	Msg  string
	Err  error // ErrBudget for a budget error, else nil
}

func (e *SWFError) Error() string { return fmt.Sprintf("swf: line %d: %s", e.Line, e.Msg) }

// Position is the line (for position.Of).
func (e *SWFError) Position() position.Position { return position.Position{Line: e.Line, Column: 1} }

// Unwrap gives ErrBudget for a budget error.
func (e *SWFError) Unwrap() error { return e.Err }

// budgetReader fails with errOverBudget once more than left bytes were read.
type budgetReader struct {
	r    io.Reader
	left int64
}

var errOverBudget = errors.New("input over the byte budget")

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errOverBudget
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// OpenSWF reads a trace from fsys, gunzipping it when it is gzipped.
func OpenSWF(fsys fs.FS, name string, opts SWFOptions) (*Trace, error) {
	f, err := openTrace(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, size, closeGz, err := decompress(f, name)
	if err != nil {
		return nil, err
	}
	defer closeGz()
	return readSWF(r, opts, size)
}

// OpenSWFReader opens a trace in fsys for reading one job at a time,
// gunzipping it when it is gzipped; closing the Closer closes the file.
func OpenSWFReader(fsys fs.FS, name string, opts SWFOptions) (*SWFReader, io.Closer, error) {
	f, err := openTrace(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	r, _, closeGz, err := decompress(f, name)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	sr, err := NewSWFReader(r, opts)
	if err != nil {
		closeGz()
		f.Close()
		return nil, nil, err
	}
	return sr, closers{closeGz, f.Close}, nil
}

// openTrace opens name in fsys, saying what an fs.FS name is when it is
// not one (an absolute path gave "invalid argument").
func openTrace(fsys fs.FS, name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("sim: %q is not a name in an fs.FS (unrooted, slash-separated, no ..): open os.DirFS(filepath.Dir(path)) and pass filepath.Base(path): %w", name, fs.ErrInvalid)
	}
	if fsys == nil {
		return nil, fmt.Errorf("sim: opening %s: no fs.FS: %w", name, fs.ErrInvalid)
	}
	return fsys.Open(name)
}

type closers []func() error

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// decompress gives f's content, gunzipped when it starts with gzip's
// magic, and f's size when it is a plain regular file (else 0).
func decompress(f fs.File, name string) (io.Reader, int64, func() error, error) {
	br := bufio.NewReader(f)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("swf: %s: %w", name, err)
		}
		return gz, 0, gz.Close, nil
	}
	size := int64(0)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return br, size, func() error { return nil }, nil
}

// maxSWFLine bounds one line of a trace (a real line is under 200 bytes).
const maxSWFLine = 16 << 20

// ReadSWF reads a whole trace (SWFReader reads one job at a time).
func ReadSWF(r io.Reader, opts SWFOptions) (*Trace, error) { return readSWF(r, opts, 0) }

// readSWF reads every job of a trace; size is the input's size when known
// (else 0), used only to size the job list.
func readSWF(r io.Reader, opts SWFOptions, size int64) (*Trace, error) {
	sr, err := NewSWFReader(r, opts)
	if err != nil {
		return nil, err
	}
	t := sr.Header()
	// a real job line is about 90 bytes: a known size sizes the list
	// once, in the usual case
	t.Jobs = make([]SWFJob, 0, min(size, opts.budget())/80+1)
	for {
		// each job read in its place in the list
		t.Jobs = append(t.Jobs, SWFJob{})
		err := sr.take(&t.Jobs[len(t.Jobs)-1])
		if err == io.EOF {
			t.Jobs = t.Jobs[:len(t.Jobs)-1]
			break
		}
		if err != nil {
			return nil, err
		}
	}
	t.Skipped = sr.Skipped()
	// Extended traces give absolute submit times: make them relative.
	first := int64(-1)
	for _, j := range t.Jobs {
		if first < 0 || int64(j.Submit) < first {
			first = int64(j.Submit)
		}
	}
	if first > 0 && time.Duration(first) > absoluteSubmit {
		for i := range t.Jobs {
			t.Jobs[i].Submit -= time.Duration(first)
		}
	}
	return t, nil
}

// absoluteSubmit: a first submit time later than this is taken as an
// absolute (Unix) time, as extended traces give.
const absoluteSubmit = 365 * 24 * time.Hour

// minSWFJobLine is the shortest line a job can have: 18 one-character
// fields, their separators and the newline.
const minSWFJobLine = 36

func (o SWFOptions) budget() int64 {
	if o.MaxBytes <= 0 {
		return DefaultMaxTraceBytes
	}
	return o.MaxBytes
}

// SWFReader reads a trace one job at a time, so a replay holds only the
// jobs it has submitted and not yet finished. Its budgets are checked as
// it reads: a line longer than 16 MiB and an input over
// SWFOptions.MaxBytes stop it with ErrBudget at the line they reach, after
// reading at most that much.
type SWFReader struct {
	br      *bufio.Reader
	opts    SWFOptions
	budget  int64
	t       *Trace
	line    int
	held    *SWFJob // the first job, read with the header
	skipped int
	err     error
	long    []byte // a line longer than the reader's buffer, joined
}

// NewSWFReader reads the trace's header (its ';' lines up to the first job)
// from r; Header gives it and Next the jobs.
func NewSWFReader(r io.Reader, opts SWFOptions) (*SWFReader, error) {
	if r == nil {
		return nil, errors.New("sim: NewSWFReader needs a reader")
	}
	s := &SWFReader{opts: opts, budget: opts.budget(), t: &Trace{Queues: map[int]string{}, Partitions: map[int]string{}}}
	s.br = bufio.NewReaderSize(&budgetReader{r: r, left: s.budget + 1}, 64<<10)
	j := new(SWFJob)
	switch err := s.nextInto(j); {
	case err == io.EOF:
	case err != nil:
		return nil, err
	default:
		s.held = j
	}
	return s, nil
}

// Header is the trace's header as read so far (header lines after the
// first job count too): sizes, names, queues and partitions, with no jobs.
// Each call returns a new copy, the caller's. Having no jobs, it has no
// SiteProperties: a cluster for an Extended trace is built from the
// whole trace (see NewTraceSource).
func (s *SWFReader) Header() *Trace {
	if s.t == nil {
		return &Trace{} // the zero SWFReader has read nothing
	}
	t := *s.t
	t.Queues, t.Partitions = maps.Clone(s.t.Queues), maps.Clone(s.t.Partitions)
	return &t
}

// Extended reports whether the trace's first job has the 21-field extended
// form (whose PBS specs name node properties the cluster needs).
func (s *SWFReader) Extended() bool { return s.held != nil && s.held.extended }

// Skipped counts the lines dropped so far under SkipMalformed.
func (s *SWFReader) Skipped() int { return s.skipped }

// Next returns the next job, io.EOF after the last, or the first error
// (*SWFError, with the line). Header lines after the first job still
// update Header.
func (s *SWFReader) Next() (SWFJob, error) {
	var j SWFJob
	if err := s.take(&j); err != nil {
		return SWFJob{}, err
	}
	return j, nil
}

// take is Next into j (a job is large: a replay reads each into one
// place). On an error j is unspecified.
func (s *SWFReader) take(j *SWFJob) error {
	if s.held != nil {
		*j = *s.held
		s.held = nil
		return nil
	}
	return s.nextInto(j)
}

// nextInto reads the next job line into j, or returns the reader's error.
func (s *SWFReader) nextInto(j *SWFJob) error {
	if s.br == nil {
		return errors.New("sim: an SWFReader needs NewSWFReader")
	}
	for s.err == nil {
		text, err := s.readLine()
		if err != nil {
			s.err = err
			break
		}
		if s.line == 1 {
			// a byte order mark (editors on Windows write one) is not
			// part of the first line's first field or header
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		if text[0] == ';' {
			s.t.header(string(text[1:]), s.line)
			continue
		}
		if err := parseSWFLine(text, s.line, j, s.opts.KeepFields); err != nil {
			if s.opts.SkipMalformed {
				s.skipped++
				s.t.Skipped = s.skipped
				continue
			}
			s.err = err
			break
		}
		return nil
	}
	return s.err
}

// readLine returns the next line without its newline (valid until the
// next call), io.EOF at the end, or a budget or read error.
func (s *SWFReader) readLine() ([]byte, error) {
	s.long = s.long[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		if len(s.long)+len(chunk) > maxSWFLine+1 {
			return nil, &SWFError{Line: s.line + 1, Err: ErrBudget, Msg: fmt.Sprintf("the line is longer than %d bytes", maxSWFLine)}
		}
		switch {
		case err == nil:
			s.line++
			if len(s.long) > 0 {
				s.long = append(s.long, chunk[:len(chunk)-1]...)
				return s.long, nil
			}
			return chunk[:len(chunk)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			s.long = append(s.long, chunk...)
		case err == io.EOF:
			if len(s.long)+len(chunk) == 0 {
				return nil, io.EOF
			}
			s.line++
			return append(s.long, chunk...), nil
		case errors.Is(err, errOverBudget):
			return nil, &SWFError{Line: s.line + 1, Err: ErrBudget,
				Msg: fmt.Sprintf("the input exceeds the budget of %d bytes (SWFOptions.MaxBytes)", s.budget)}
		default:
			return nil, &SWFError{Line: s.line + 1, Msg: err.Error()}
		}
	}
}

func (t *Trace) header(h string, line int) {
	key, val, ok := strings.Cut(h, ":")
	if !ok {
		return
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	num := func() int {
		n, _ := strconv.Atoi(strings.Fields(val + " 0")[0])
		return n
	}
	switch key {
	case "MaxNodes":
		t.MaxNodes, t.MaxNodesLine = num(), line
	case "MaxProcs":
		t.MaxProcs, t.MaxProcsLine = num(), line
	case "Computer":
		t.Computer = val
	case "Installation":
		t.Installation = val
	case "UnixStartTime":
		t.UnixStart = int64(num())
	case "Queue", "Partition":
		f := strings.Fields(val)
		if len(f) < 2 {
			return
		}
		n, err := strconv.Atoi(f[0])
		if err != nil {
			return
		}
		if key == "Queue" {
			t.Queues[n] = f[1]
		} else {
			t.Partitions[n] = f[1]
		}
	}
}

// maxSWFFields is the most fields a line may have (the extended form).
const maxSWFFields = 21

// parseSWFLine reads one job line into j (all of it: nothing of j's
// previous content is kept).
func parseSWFLine(text []byte, line int, j *SWFJob, keep bool) error {
	var vals [18]float64
	var f [][]byte
	n := 18
	if !parseSWFInts(text, &vals) {
		var buf [maxSWFFields][]byte
		var err error
		if f, n, err = parseSWFFields(text, line, buf[:0], &vals); err != nil {
			return err
		}
	}
	sec := func(v float64) time.Duration {
		if v < 0 {
			return -1
		}
		return time.Duration(v * float64(time.Second)) // <= MaxSWFSeconds: fits
	}
	*j = SWFJob{Line: line, ID: int64(vals[0]), Submit: sec(vals[1]), Wait: sec(vals[2]), Run: sec(vals[3]),
		ReqTime: sec(vals[8]), ReqMemKB: int64(vals[9]), Status: int(vals[10]), User: int(vals[11]),
		Queue: int(vals[14]), Partition: int(vals[15])}
	if keep {
		j.Fields = new(SWFFields)
		*j.Fields = vals
	}
	j.Procs, j.Allocated = int(vals[7]), int(vals[4])
	if j.Procs <= 0 {
		j.Procs = int(vals[4])
	}
	if j.Submit < 0 {
		return &SWFError{Line: line, Msg: "unknown submit time"}
	}
	if n == maxSWFFields {
		j.extended = true
		j.QueueName = string(f[19])
		if err := j.parsePBS(string(f[20])); err != nil {
			se := &SWFError{Line: line, Msg: err.Error()}
			if errors.Is(err, ErrBudget) {
				se.Err = ErrBudget
			}
			return se
		}
	}
	return nil
}

// parseSWFInts reads the usual line, 18 short integers in range, into
// vals in one scan of its bytes. It reports false for anything else
// (another field count, a field that is not an integer of at most 18
// digits, a non-ASCII byte, a value over its limit): parseSWFFields then
// reads the line, errors included. Where it reports true, the values are
// those parseSWFFields reads.
func parseSWFInts(text []byte, vals *[18]float64) bool {
	n := 0
	for i := 0; i < len(text); {
		if asciiSpace(text[i]) {
			i++
			continue
		}
		if n == len(vals) {
			return false
		}
		neg := text[i] == '-'
		if neg {
			i++
		}
		start, v := i, int64(0)
		for ; i < len(text) && text[i]-'0' <= 9; i++ {
			v = v*10 + int64(text[i]-'0')
		}
		d := i - start
		if d == 0 || d > 18 || i < len(text) && !asciiSpace(text[i]) {
			return false // (a non-ASCII byte stops the digits and is no space)
		}
		if neg {
			v = -v
		}
		x := float64(v)
		// nine digits or fewer are under every field's limit (the least
		// is maxSWFCount, ten digits)
		if d > 9 && math.Abs(x) > swfFieldLimit(n) {
			return false
		}
		vals[n] = x
		n++
	}
	return n == len(vals)
}

// parseSWFFields splits a line into fields and reads the first 18 as
// numbers into vals, returning the fields and their count, or the
// line's error.
func parseSWFFields(text []byte, line int, buf [][]byte, vals *[18]float64) ([][]byte, int, error) {
	f, n := swfFields(text, buf)
	if n != 18 && n != maxSWFFields {
		return nil, n, &SWFError{Line: line, Msg: fmt.Sprintf("%d fields, want 18 (or 21 for the extended form)", n)}
	}
	for i := 0; i < 18; i++ {
		v, ok := swfNumber(f[i])
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, n, &SWFError{Line: line, Msg: fmt.Sprintf("field %d %q is not a number", i+1, f[i])}
		}
		if limit := swfFieldLimit(i); math.Abs(v) > limit {
			return nil, n, &SWFError{Line: line, Err: ErrBudget,
				Msg: fmt.Sprintf("field %d %q is out of range (at most %.0f)", i+1, f[i], limit)}
		}
		vals[i] = v
	}
	return f, n, nil
}

// swfFields splits a line at white space as bytes.Fields does, into buf
// when it holds no more than maxSWFFields fields (and then without
// allocating: the fields are slices of line); n is the number of fields
// either way. A line with non-ASCII bytes goes through bytes.Fields, whose
// idea of white space is Unicode's.
func swfFields(line []byte, buf [][]byte) (fields [][]byte, n int) {
	for _, c := range line {
		if c >= utf8.RuneSelf {
			f := bytes.Fields(line)
			return f, len(f)
		}
	}
	for i := 0; i < len(line); {
		for i < len(line) && asciiSpace(line[i]) {
			i++
		}
		start := i
		for i < len(line) && !asciiSpace(line[i]) {
			i++
		}
		if i > start {
			if n < maxSWFFields {
				buf = append(buf, line[start:i])
			}
			n++
		}
	}
	return buf, n
}

// asciiSpace is unicode.IsSpace on an ASCII byte.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// swfNumber reads a field as strconv.ParseFloat does. Fields are nearly
// always integers of a few digits: those are read without a string (an
// integer below 10^18 converts to the float ParseFloat would round to);
// anything else goes to ParseFloat.
func swfNumber(b []byte) (float64, bool) {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 0 && len(digits) <= 18 {
		n := int64(0)
		for _, c := range digits {
			if c < '0' || c > '9' {
				return parseFloat(b)
			}
			n = n*10 + int64(c-'0')
		}
		if len(digits) < len(b) {
			n = -n
		}
		return float64(n), true
	}
	return parseFloat(b)
}

func parseFloat(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}

// swfFieldLimit is the largest magnitude field i (0-based) may hold: times
// (submit, wait, run, requested time; fields 2-4 and 9) at most
// MaxSWFSeconds, memory sizes (fields 7 and 10) what float64 holds exactly,
// every other count an int32.
func swfFieldLimit(i int) float64 {
	switch i {
	case 1, 2, 3, 8:
		return MaxSWFSeconds
	case 6, 9:
		return 1 << 53
	}
	return maxSWFCount
}

// parsePBS reads "nodes[:ppn=N][:property...][#excl]", or several such
// chunks joined by '+' ("1:ppn=1+3:ppn=2": 4 nodes, 7 processors, at
// least 1 per node).
func (j *SWFJob) parsePBS(spec string) error {
	spec, j.Exclusive = strings.CutSuffix(spec, "#excl")
	for _, chunk := range strings.Split(spec, "+") {
		nodes, ppn, err := j.parseChunk(spec, chunk)
		if err != nil {
			return err
		}
		// nodes <= MaxClusterNodes and ppn <= 1<<20 per chunk: the sums
		// below are checked against the budgets before they can overflow
		j.Nodes += nodes
		j.Procs2 += nodes * max(ppn, 1)
		if j.Nodes > MaxClusterNodes || j.Procs2 > maxSWFCount {
			return fmt.Errorf("PBS spec %q asks for more than %d nodes or %d processors: %w", spec, MaxClusterNodes, maxSWFCount, ErrBudget)
		}
		if ppn > 0 && (j.PPN == 0 || ppn < j.PPN) {
			j.PPN = ppn
		}
	}
	return nil
}

func (j *SWFJob) parseChunk(spec, chunk string) (nodes, ppn int, err error) {
	parts := strings.Split(chunk, ":")
	n, convErr := strconv.Atoi(parts[0])
	switch {
	case convErr == nil && n > MaxClusterNodes:
		return 0, 0, fmt.Errorf("PBS spec %q: %d nodes is over the %d-node budget: %w", spec, n, MaxClusterNodes, ErrBudget)
	case convErr == nil && n >= 1:
		nodes = n
	case convErr != nil && parts[0] != "" && !strings.ContainsAny(parts[0], "=# "):
		nodes = 1 // a host name: one particular node
		j.Host, _, _ = strings.Cut(parts[0], ".")
	default:
		return 0, 0, fmt.Errorf("PBS spec %q: %q is neither a node count nor a host", spec, parts[0])
	}
	for _, p := range parts[1:] {
		if v, ok := strings.CutPrefix(p, "ppn="); ok {
			// real traces hold fractions ("ppn=1.5"): a processor is whole
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f > 1<<20 {
				return 0, 0, fmt.Errorf("PBS spec %q: bad ppn %q", spec, v)
			}
			ppn = int(math.Ceil(f))
			continue
		}
		j.addProperty(p)
	}
	return nodes, ppn, nil
}

// addProperty files one ':'-separated term of a PBS chunk: "host=H" or a
// domain name asks for that host, "^X" avoids a host or a property, any
// other "name=value" is a resource ("mem=3gb"), any other word a node
// property.
func (j *SWFJob) addProperty(p string) {
	host, isHost := strings.CutPrefix(p, "host=")
	switch {
	case p == "":
	case strings.HasPrefix(p, "^"):
		name, _, _ := strings.Cut(p[1:], ".")
		if name != "" && !slices.Contains(j.Avoid, name) {
			j.Avoid = append(j.Avoid, name)
		}
	case isHost || (strings.Contains(p, ".") && !strings.Contains(p, "=")):
		if j.Host == "" {
			j.Host, _, _ = strings.Cut(host, ".")
		}
	case strings.Contains(p, "="):
		if !slices.Contains(j.Resources, p) {
			j.Resources = append(j.Resources, p)
		}
	case !slices.Contains(j.Properties, p):
		j.Properties = append(j.Properties, p)
	}
}

// Machine is one line of a .machines file: a group of identical nodes.
type Machine struct {
	Name     string
	Nodes    int
	CPUs     int
	MemoryKB int64
}

// ReadMachines reads Alea's .machines format: "id name nodes cpus speed
// memory" (memory in KB, -1 unknown); each group name once.
func ReadMachines(r io.Reader) ([]Machine, error) {
	if r == nil {
		return nil, errors.New("sim: ReadMachines needs a reader")
	}
	var out []Machine
	names := map[string]int{} // group name: its line
	sc := bufio.NewScanner(&budgetReader{r: r, left: maxMachinesBytes})
	line, total := 0, 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 4 {
			return nil, &SWFError{Line: line, Msg: "machines: want id name nodes cpus [speed memory]"}
		}
		nodes, err1 := strconv.Atoi(f[2])
		cpus, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || nodes < 1 || cpus < 1 {
			return nil, &SWFError{Line: line, Msg: "machines: nodes and cpus must be positive numbers"}
		}
		total += nodes
		if nodes > MaxClusterNodes || total > MaxClusterNodes || cpus > maxSWFCount {
			return nil, &SWFError{Line: line, Err: ErrBudget,
				Msg: fmt.Sprintf("machines: more than %d nodes in all, or more than %d CPUs a node", MaxClusterNodes, maxSWFCount)}
		}
		if first, ok := names[f[1]]; ok {
			// its nodes would have the names of the first group's
			return nil, &SWFError{Line: line, Msg: fmt.Sprintf("machines: group %q is also on line %d", f[1], first)}
		}
		names[f[1]] = line
		m := Machine{Name: f[1], Nodes: nodes, CPUs: cpus}
		if len(f) >= 6 {
			// the nodes' RealMemory (-1 unknown): a bad one is said, not
			// read as 0
			if m.MemoryKB, err1 = strconv.ParseInt(f[5], 10, 64); err1 != nil || m.MemoryKB < -1 {
				return nil, &SWFError{Line: line, Msg: fmt.Sprintf("machines: memory %q is not a number of KB", f[5])}
			}
			m.MemoryKB = max(m.MemoryKB, 0)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		msg := err.Error()
		if errors.Is(err, errOverBudget) {
			return nil, &SWFError{Line: line + 1, Err: ErrBudget, Msg: fmt.Sprintf("machines: over the %d-byte budget", maxMachinesBytes)}
		}
		return nil, &SWFError{Line: line + 1, Msg: "machines: " + msg}
	}
	return out, nil
}

// maxMachinesBytes bounds a machines file (real ones are a few lines).
const maxMachinesBytes = 16 << 20
