package allocation

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// job is the job's record: the live one, else the newest archived one
// unless the job was forgotten since it was archived.
func (s *state) job(id JobID) (Job, bool, error) {
	if j, ok := s.jobs.Get(Job{ID: id}); ok {
		return j, true, nil
	}
	if s.forgotten.Has(id) {
		return Job{}, false, nil
	}
	return s.archivedJob(id)
}

// archivedJob looks for id in the segments whose id range holds it, the
// newest first (a job forgotten and run again is archived twice).
func (s *state) archivedJob(id JobID) (Job, bool, error) {
	for i := len(s.segs) - 1; i >= 0; i-- {
		m := s.segs[i]
		if id < m.MinJob || id > m.MaxJob {
			continue
		}
		j, ok, err := findInSegment(s.dir, m, id)
		if err != nil || ok {
			return j, ok, err
		}
	}
	return Job{}, false, nil
}

// eachArchived calls f with every archived record that is still the
// job's record (not shadowed by a live job, a forget or a newer archive
// of the same id), newest segment first. Only records keep pass are
// checked for a newer archive, by lookup in the newer segments whose id
// range holds them, so memory does not grow with the history.
func (s *state) eachArchived(alloc AllocationID, keep func(archived) bool, f func(archived)) error {
	for i := len(s.segs) - 1; i >= 0; i-- {
		if !s.segs[i].holds(alloc) {
			continue
		}
		var inner error
		_, _, err := scanSegment(s.dir, s.segs[i], func(a archived) bool {
			id := a.Job.ID
			if !keep(a) || s.forgotten.Has(id) || s.jobs.Has(Job{ID: id}) {
				return true
			}
			newer, err := s.archivedAfter(i, id)
			if inner = err; err != nil {
				return false
			}
			if !newer {
				f(a)
			}
			return true
		})
		if err == nil {
			err = inner
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// archivedAfter reports whether a segment newer than segs[i] holds id.
func (s *state) archivedAfter(i int, id JobID) (bool, error) {
	for _, m := range s.segs[i+1:] {
		if id < m.MinJob || id > m.MaxJob {
			continue
		}
		if _, ok, err := findInSegment(s.dir, m, id); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// archivedHistory is the allocation's archived activity; every archived
// activity is history, even that of a job forgotten since.
func (s *state) archivedHistory(id AllocationID) ([]Activity, error) {
	var out []Activity
	for _, m := range s.segs {
		if !m.holds(id) {
			continue
		}
		_, _, err := scanSegment(s.dir, m, func(a archived) bool {
			for _, act := range a.Activity {
				if act.Allocation == id {
					out = append(out, act)
				}
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// archiveCompleted writes the completed jobs of st, with their activity,
// into new segments beside path, and returns the state to snapshot: st
// without them, listing the new segments. st must be the caller's own
// clone (made under the write lock: cloning a btree writes to it), as it
// is changed.
func archiveCompleted(path string, st *state, limit int64, step func(string) error) (*state, []archived, error) {
	var done []archived
	index := map[JobID]int{}
	st.jobs.Ascend(func(j Job) bool {
		if j.Status == Completed {
			index[j.ID] = len(done)
			done = append(done, archived{Job: j})
		}
		return true
	})
	if len(done) == 0 {
		return st, nil, nil
	}
	st.activity.Ascend(func(a Activity) bool {
		if i, ok := index[a.Job]; ok && a.Job != 0 {
			done[i].Activity = append(done[i].Activity, a)
		}
		return true
	})
	w := &segmentWriter{dir: filepath.Dir(path), base: filepath.Base(path), limit: limit, next: nextSegment(st.segs), step: step}
	for _, a := range done {
		if err := w.add(a); err != nil {
			return nil, nil, err
		}
	}
	if err := w.flush(); err != nil {
		return nil, nil, err
	}
	if err := syncDir(w.dir); err != nil {
		return nil, nil, err
	}
	snap := st
	for _, a := range done {
		snap.dropArchived(a)
	}
	snap.segs = append(slices.Clip(snap.segs), w.metas...)
	return snap, done, nil
}

// nextSegment is the number after the highest the index lists.
func nextSegment(segs []segmentMeta) int {
	n := 1
	for _, m := range segs {
		if i := strings.LastIndex(m.Name, ".seg."); i >= 0 {
			if k, err := strconv.Atoi(m.Name[i+len(".seg."):]); err == nil {
				n = max(n, k+1)
			}
		}
	}
	return n
}

// dropArchived removes an archived job and its activity from the live
// tables; the archive is now its record, so an older forget no longer
// applies.
func (s *state) dropArchived(a archived) {
	s.deleteJob(a.Job)
	s.dropActivity(a.Activity)
	s.forgotten.Delete(a.Job.ID)
}

// afterArchive is the live state once snap (which archived done) is
// written: the ops made meanwhile kept. A job archived but no longer live
// was forgotten meanwhile: a forget replayed on snap records the same.
func (s *state) afterArchive(snap *state, done []archived) *state {
	next := s.clone()
	for _, a := range done {
		live, ok := next.jobs.Get(Job{ID: a.Job.ID})
		switch {
		case ok && live == a.Job:
			next.dropArchived(a)
			continue
		case ok: // run again after a forget: the live record shadows it
			next.forgotten.Delete(a.Job.ID)
		default:
			next.forgotten.ReplaceOrInsert(a.Job.ID)
		}
		next.dropActivity(a.Activity)
	}
	next.segs = snap.segs
	return next
}

func (s *state) dropActivity(as []Activity) {
	for _, act := range as {
		if _, ok := s.activity.Delete(act); ok {
			s.activityN--
		}
	}
}

// sortJobs and sortActivity order merged live and archived records.
func sortJobs(js []Job) { slices.SortFunc(js, func(a, b Job) int { return cmp.Compare(a.ID, b.ID) }) }

func sortActivity(as []Activity) {
	slices.SortFunc(as, func(a, b Activity) int { return cmp.Compare(a.ID, b.ID) })
}
