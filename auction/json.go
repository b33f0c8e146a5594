package auction

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// ReadJSON reads a problem in JSON and validates it. The format, which
// WriteJSON writes and the sample windows of the AUCSCHED3 kind use:
//
//	{"name": "...", "params": {...}, "alpha": 1.0,
//	 "nodes": [{"cpus": 16, "gpus": 3}, ...],
//	 "jobs": [{"id": 27, "priority": 1976, "type": "B",
//	           "req": {"cores": 385, "nodes": 52, "gpus_per_node": 0},
//	           "bids": [{"uses": [[612, 5, 0], [613, 13, 0]], "cost": 1.55, "level": 1}]}]}
//
// nodes gives the free cores and GPUs of node i at index i; a bid's uses
// are [node, cores, GPUs] triples; alpha (formula (7)), a job's id and
// priority and a bid's cost and uses are required, and none of the keys
// above may come twice in one object; name, params, type and req are kept
// but do not enter the objective; the optional "value_by_cores": true is
// Problem.ValueByCores. Other keys are skipped. It streams: nodes, jobs, bids and uses are counted against
// MaxNodes, MaxJobs, MaxBidsPerJob, MaxBids and MaxUses before each is
// stored, and at most MaxInputBytes are read, so a hostile file cannot make
// it allocate more than a bounded amount. Errors are *Error with the JSON
// path and byte offset.
func ReadJSON(r io.Reader) (*Problem, error) {
	if r == nil {
		return nil, &Error{Err: ErrInvalid, Msg: "nil io.Reader"}
	}
	lr := &io.LimitedReader{R: r, N: MaxInputBytes + 1}
	sq := newSqueezer(lr)
	jr := &jsonReader{dec: newDecoder(sq), sq: sq}
	p, err := jr.problem()
	if err != nil {
		switch {
		case lr.N <= 0:
			return nil, &Error{Err: ErrBudget, Msg: fmt.Sprintf("input over %d bytes", MaxInputBytes)}
		case sq.err != nil:
			return nil, sq.err
		}
		return nil, err
	}
	if _, err := jr.dec.Token(); err != io.EOF {
		return nil, jr.errorf("", "data after the problem object")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if !jr.alpha {
		return nil, &Error{Path: "alpha", Err: ErrInvalid, Msg: "missing (the objective's cost weight, formula (7)): not taken as 0"}
	}
	return p, nil
}

func newDecoder(r io.Reader) *json.Decoder { return json.NewDecoder(r) }

type jsonReader struct {
	dec        *json.Decoder
	sq         *squeezer
	bids, uses int
	alpha      bool // the problem gave alpha
}

func (jr *jsonReader) errorf(path, format string, args ...any) error {
	return &Error{Path: path, Offset: jr.sq.inputOffset(jr.dec.InputOffset()), Err: ErrInvalid, Msg: fmt.Sprintf(format, args...)}
}

func (jr *jsonReader) budget(path, format string, args ...any) error {
	return &Error{Path: path, Offset: jr.sq.inputOffset(jr.dec.InputOffset()), Err: ErrBudget, Msg: fmt.Sprintf(format, args...)}
}

func (jr *jsonReader) wrap(path string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{Path: path, Offset: jr.sq.inputOffset(se.Offset), Err: ErrInvalid, Msg: se.Error()}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return jr.errorf(path, "unexpected end of input")
	}
	return jr.errorf(path, "%v", err)
}

func (jr *jsonReader) decode(path string, v any) error {
	if err := jr.dec.Decode(v); err != nil {
		return jr.wrap(path, err)
	}
	return nil
}

// delim consumes the delimiter want ('{' or '[').
func (jr *jsonReader) delim(path string, want json.Delim) error {
	tok, err := jr.dec.Token()
	if err != nil {
		return jr.wrap(path, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return jr.errorf(path, "want %q, got %v", string(want), tok)
	}
	return nil
}

// object calls field for each key of an object. A key of known given
// twice is an error: a second "cost" overrode the first, a second "nodes"
// or "jobs" added to the first, without a word. Other keys are skipped
// however often they come. The keys of known that the object gave are
// returned, one bit each in known's order, for the caller to require some.
func (jr *jsonReader) object(path string, known []string, field func(key string) error) (uint, error) {
	if err := jr.delim(path, '{'); err != nil {
		return 0, err
	}
	var seen uint
	for jr.dec.More() {
		tok, err := jr.dec.Token()
		if err != nil {
			return seen, jr.wrap(path, err)
		}
		key, _ := tok.(string)
		if k := slices.Index(known, key); k >= 0 {
			if seen&(1<<k) != 0 {
				return seen, jr.errorf(joinPath(path, key), "given twice")
			}
			seen |= 1 << k
		}
		if err := field(key); err != nil {
			return seen, err
		}
	}
	_, err := jr.dec.Token() // '}'
	if err != nil {
		return seen, jr.wrap(path, err)
	}
	return seen, nil
}

// require reports the first key of known, among those whose bits are in
// want, that seen lacks: a missing priority or cost read as 0, so a typo
// ("cots") changed the objective silently.
func (jr *jsonReader) require(path string, known []string, seen, want uint) error {
	for k, key := range known {
		if want&(1<<k) != 0 && seen&(1<<k) == 0 {
			return jr.errorf(joinPath(path, key), "missing")
		}
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// The keys each object of the format knows, and the bits of those it
// requires (alpha is required apart, after the whole problem is read).
var (
	problemKeys = []string{"name", "params", "alpha", "value_by_cores", "nodes", "jobs"}
	jobKeys     = []string{"id", "priority", "type", "req", "bids"}
	bidKeys     = []string{"cost", "level", "uses"}
)

const (
	jobRequires = 1<<0 | 1<<1 // id, priority
	bidRequires = 1<<0 | 1<<2 // cost, uses
)

// array calls elem for each element of an array, after checking the count
// against limit.
func (jr *jsonReader) array(path string, limit int, elem func(k int) error) error {
	tok, err := jr.dec.Token()
	if err != nil {
		return jr.wrap(path, err)
	}
	if tok == nil {
		return nil // null: no elements
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return jr.errorf(path, "want \"[\", got %v", tok)
	}
	for k := 0; jr.dec.More(); k++ {
		if k >= limit {
			return jr.budget(path, "more than %d elements", limit)
		}
		if err := elem(k); err != nil {
			return err
		}
	}
	if _, err := jr.dec.Token(); err != nil { // ']'
		return jr.wrap(path, err)
	}
	return nil
}

func (jr *jsonReader) skip(path string) error {
	var raw json.RawMessage
	return jr.decode(path, &raw)
}

func (jr *jsonReader) problem() (*Problem, error) {
	p := &Problem{}
	_, err := jr.object("", problemKeys, func(key string) error {
		switch key {
		case "name":
			return jr.decode(key, &p.Name)
		case "params":
			return jr.decode(key, &p.Params)
		case "alpha":
			jr.alpha = true
			return jr.decode(key, &p.Alpha)
		case "value_by_cores":
			return jr.decode(key, &p.ValueByCores)
		case "nodes":
			return jr.array("nodes", MaxNodes, func(k int) error {
				var n Node
				if err := jr.decode("nodes["+strconv.Itoa(k)+"]", &n); err != nil {
					return err
				}
				p.Nodes = append(p.Nodes, n)
				return nil
			})
		case "jobs":
			return jr.array("jobs", MaxJobs, func(k int) error {
				job, err := jr.job("jobs[" + strconv.Itoa(k) + "]")
				if err == nil {
					p.Jobs = append(p.Jobs, job)
				}
				return err
			})
		}
		return jr.skip(key)
	})
	return p, err
}

func (jr *jsonReader) job(path string) (Job, error) {
	var job Job
	seen, err := jr.object(path, jobKeys, func(key string) error {
		switch key {
		case "id":
			return jr.decode(path+".id", &job.ID)
		case "priority":
			return jr.decode(path+".priority", &job.Priority)
		case "type":
			return jr.decode(path+".type", &job.Type)
		case "req":
			return jr.decode(path+".req", &job.Req)
		case "bids":
			return jr.array(path+".bids", MaxBidsPerJob, func(k int) error {
				if jr.bids++; jr.bids > MaxBids {
					return jr.budget(path+".bids", "more than %d bids in all", MaxBids)
				}
				b, err := jr.bid(path + ".bids[" + strconv.Itoa(k) + "]")
				if err == nil {
					job.Bids = append(job.Bids, b)
				}
				return err
			})
		}
		return jr.skip(path + "." + key)
	})
	if err == nil {
		err = jr.require(path, jobKeys, seen, jobRequires)
	}
	return job, err
}

func (jr *jsonReader) bid(path string) (Bid, error) {
	var b Bid
	seen, err := jr.object(path, bidKeys, func(key string) error {
		switch key {
		case "cost":
			return jr.decode(path+".cost", &b.Cost)
		case "level":
			return jr.decode(path+".level", &b.Level)
		case "uses":
			return jr.uses_(path+".uses", &b)
		}
		return jr.skip(path + "." + key)
	})
	if err == nil {
		err = jr.require(path, bidKeys, seen, bidRequires)
	}
	return b, err
}

// uses_ reads a bid's uses: the raw array (its bytes are within
// MaxInputBytes) is counted against MaxUses before any Use is stored, then
// parsed by hand, which is much faster than token by token.
func (jr *jsonReader) uses_(path string, b *Bid) error {
	var raw json.RawMessage
	if err := jr.decode(path, &raw); err != nil {
		return err
	}
	if string(raw) == "null" {
		return nil
	}
	n := bytes.Count(raw, []byte{'['}) - 1
	if jr.uses += max(n, 0); jr.uses > MaxUses {
		return jr.budget(path, "more than %d uses in all", MaxUses)
	}
	b.Uses = make([]Use, 0, max(n, 0))
	sc := useScanner{data: raw}
	if !sc.byte('[') {
		return jr.errorf(path, "want an array of [node, cores, gpus]")
	}
	if sc.byte(']') {
		return sc.end(jr, path)
	}
	for k := 0; ; k++ {
		var v [3]int
		if !sc.byte('[') {
			return jr.errorf(fmt.Sprintf("%s[%d]", path, k), "a use is [node, cores, gpus]")
		}
		for x := range v {
			if x > 0 && !sc.byte(',') {
				return jr.errorf(fmt.Sprintf("%s[%d]", path, k), "a use is [node, cores, gpus], got %d numbers", x)
			}
			num, ok := sc.int()
			if !ok {
				return jr.errorf(fmt.Sprintf("%s[%d]", path, k), "want a whole number of at most %d", MaxUseNumber)
			}
			v[x] = num
		}
		if !sc.byte(']') {
			return jr.errorf(fmt.Sprintf("%s[%d]", path, k), "a use is [node, cores, gpus], got more than 3 numbers")
		}
		b.Uses = append(b.Uses, Use{Node: v[0], Cores: v[1], GPUs: v[2]})
		if sc.byte(']') {
			return sc.end(jr, path)
		}
		if !sc.byte(',') {
			return jr.errorf(fmt.Sprintf("%s[%d]", path, k), "want , or ] after a use")
		}
	}
}

// MaxUseNumber bounds each number of a use, so none overflows an int.
const MaxUseNumber = 1 << 30

// useScanner reads JSON arrays of small integers.
type useScanner struct {
	data []byte
	at   int
}

func (sc *useScanner) space() {
	for sc.at < len(sc.data) && (sc.data[sc.at] == ' ' || sc.data[sc.at] == '\n' || sc.data[sc.at] == '\t' || sc.data[sc.at] == '\r') {
		sc.at++
	}
}

// byte consumes c (after white space) when it comes next.
func (sc *useScanner) byte(c byte) bool {
	sc.space()
	if sc.at < len(sc.data) && sc.data[sc.at] == c {
		sc.at++
		return true
	}
	return false
}

// int reads an integer (optionally negative, no fraction or exponent).
func (sc *useScanner) int() (int, bool) {
	sc.space()
	neg := sc.at < len(sc.data) && sc.data[sc.at] == '-'
	if neg {
		sc.at++
	}
	start, v := sc.at, 0
	for sc.at < len(sc.data) && sc.data[sc.at] >= '0' && sc.data[sc.at] <= '9' {
		v = 10*v + int(sc.data[sc.at]-'0')
		if v > MaxUseNumber {
			return 0, false
		}
		sc.at++
	}
	if sc.at == start || (sc.at < len(sc.data) && (sc.data[sc.at] == '.' || sc.data[sc.at] == 'e' || sc.data[sc.at] == 'E')) {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

func (sc *useScanner) end(jr *jsonReader, path string) error {
	sc.space()
	if sc.at != len(sc.data) {
		return jr.errorf(path, "unexpected data after the uses")
	}
	return nil
}

// MarshalJSON writes a use as [node, cores, gpus].
func (u Use) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 24)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(u.Node), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(u.Cores), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(u.GPUs), 10)
	return append(b, ']'), nil
}

// UnmarshalJSON reads a use from [node, cores, gpus].
func (u *Use) UnmarshalJSON(data []byte) error {
	var v []int
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if len(v) != 3 {
		return fmt.Errorf("auction: a use is [node, cores, gpus], got %d numbers", len(v))
	}
	*u = Use{Node: v[0], Cores: v[1], GPUs: v[2]}
	return nil
}

// WriteJSON writes p in the format ReadJSON reads.
func WriteJSON(w io.Writer, p *Problem) error {
	return json.NewEncoder(w).Encode(p)
}
