package queue

// certTable holds the certificates by job: a window of consecutive job
// IDs in a slice, any other ID in a map. The jobs a pass checks are the
// pending ones, whose IDs the scheduler hands out in order, so they sit
// in a window that moves up as the oldest start; a lookup there is an
// index, where a map hashes the ID (a check is made for every pending job
// a pass reaches).
type certTable struct {
	base  JobID // win[0]'s job
	win   []*skipCert
	other map[JobID]*skipCert
	n     int // certificates held
}

// maxWinGap is how far past the window's end an ID may fall and still
// grow the window (beyond it, or below the window, the map takes it).
const maxWinGap = 1024

func (t *certTable) get(id JobID) *skipCert {
	if i := uint64(id - t.base); i < uint64(len(t.win)) { // (wraps below base)
		return t.win[i]
	}
	return t.other[id]
}

// set gives job id certificate c (not nil).
func (t *certTable) set(id JobID, c *skipCert) {
	if t.n == 0 && len(t.other) == 0 {
		t.base, t.win = id, t.win[:0]
	}
	i := uint64(id - t.base)
	if i >= uint64(len(t.win)) && id >= t.base {
		for len(t.win) > 0 && t.win[0] == nil { // the window moves up
			t.win, t.base = t.win[1:], t.base+1
		}
		if i = uint64(id - t.base); i < uint64(2*len(t.win)+maxWinGap) {
			for uint64(len(t.win)) <= i {
				t.win = append(t.win, nil)
			}
		}
	}
	if i < uint64(len(t.win)) {
		if t.win[i] == nil {
			t.n++
		}
		t.win[i] = c
		return
	}
	if t.other == nil {
		t.other = map[JobID]*skipCert{}
	}
	if _, ok := t.other[id]; !ok {
		t.n++
	}
	t.other[id] = c
}

// del drops job id's certificate, if any.
func (t *certTable) del(id JobID) {
	if i := uint64(id - t.base); i < uint64(len(t.win)) {
		if t.win[i] != nil {
			t.win[i] = nil // (set moves the window up past it)
			t.n--
		}
		return
	}
	if _, ok := t.other[id]; ok {
		delete(t.other, id)
		t.n--
	}
}

// each calls f with every certificate and its job (any order); f may
// delete the one it is given.
func (t *certTable) each(f func(JobID, *skipCert)) {
	for i, c := range t.win {
		if c != nil {
			f(t.base+JobID(i), c)
		}
	}
	for id, c := range t.other {
		f(id, c)
	}
}
