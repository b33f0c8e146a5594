package allocation

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/btree"
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
// newest first (a job forgotten and run again is archived twice; a record
// of refusals only is passed over).
func (s *state) archivedJob(id JobID) (Job, bool, error) {
	for i := len(s.segs) - 1; i >= 0; i-- {
		a, ok, err := s.archivedIn(i, id)
		if err != nil {
			return Job{}, false, err
		}
		if ok && a.hasJob() {
			return a.Job, true, nil
		}
	}
	return Job{}, false, nil
}

// archivedIn is job id's record in segs[i] when the segment's range of
// archived jobs holds id.
func (s *state) archivedIn(i int, id JobID) (archived, bool, error) {
	if m := s.segs[i]; id >= m.MinJob && id <= m.MaxJob {
		return findInSegment(s.dir, m, id)
	}
	return archived{}, false, nil
}

// refusedIn is job id's record in segs[i] when the segment's range of
// refused jobs holds id.
func (s *state) refusedIn(i int, id JobID) (archived, bool, error) {
	if m := s.segs[i]; m.Failures > 0 && id >= m.MinRefused && id <= m.MaxRefused {
		return findInSegment(s.dir, m, id)
	}
	return archived{}, false, nil
}

// lastArchivedFailure is job id's latest archived refusal (Attempt 0 when
// none): the last of the newest segment whose record of id has refusals.
// A compaction archives every refusal, so the live ones are newer.
func (s *state) lastArchivedFailure(id JobID) (Failure, error) {
	for i := len(s.segs) - 1; i >= 0; i-- {
		a, ok, err := s.refusedIn(i, id)
		if err != nil {
			return Failure{}, err
		}
		if ok && len(a.Failures) > 0 {
			return a.Failures[len(a.Failures)-1], nil
		}
	}
	return Failure{}, nil
}

// archivedFailures is every archived refusal, read from the segments that
// hold some.
func (s *state) archivedFailures() ([]Failure, error) {
	var out []Failure
	for _, m := range s.segs {
		if m.Failures == 0 {
			continue
		}
		if _, _, err := scanSegment(s.dir, m, func(a archived) bool { out = append(out, a.Failures...); return true }); err != nil {
			return nil, err
		}
	}
	return out, nil
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
		err := recordsOf(s.dir, s.segs[i], alloc, func(a archived) bool {
			id := a.Job.ID
			if !a.hasJob() || !keep(a) || s.forgotten.Has(id) || s.jobs.Has(Job{ID: id}) {
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

// archivedAfter reports whether a segment newer than segs[i] holds job
// id's record.
func (s *state) archivedAfter(i int, id JobID) (bool, error) {
	for k := i + 1; k < len(s.segs); k++ {
		a, ok, err := s.archivedIn(k, id)
		if err != nil || (ok && a.hasJob()) {
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
		err := recordsOf(s.dir, m, id, func(a archived) bool {
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
// and every refusal into new segments beside path (with the newest
// segment's records when it is small: see segmerge.go), and returns the
// state to snapshot: st without them, listing the new segments; and the
// segments it replaced, whose files are removed once that snapshot is
// durable. st must be the caller's own clone (made under the write lock:
// cloning a btree writes to it), as it is changed.
func archiveCompleted(path string, st *state, limit int64, step func(string) error) (*state, []archived, []segmentMeta, error) {
	var done []archived
	index := map[JobID]int{}
	st.jobs.Ascend(func(j Job) bool {
		if j.Status == Completed {
			index[j.ID] = len(done)
			done = append(done, archived{Job: j})
		}
		return true
	})
	st.activity.Ascend(func(a Activity) bool {
		if i, ok := index[a.Job]; ok && a.Job != 0 {
			done[i].Activity = append(done[i].Activity, a)
		}
		return true
	})
	done = withFailures(done, index, st.failures)
	if len(done) == 0 {
		return st, nil, nil, nil
	}
	w := &segmentWriter{dir: filepath.Dir(path), base: filepath.Base(path), limit: limit, next: nextSegment(st.segs), step: step}
	kept, err := w.write(st.segs, done)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := syncDir(w.dir); err != nil {
		return nil, nil, nil, err
	}
	gone := st.segs[len(kept):]
	snap := st
	for _, a := range done {
		snap.dropArchived(a)
	}
	snap.segs = append(slices.Clip(kept), w.metas...)
	return snap, done, gone, nil
}

// write writes done into new segments: merged with the newest of segs
// when that one is small and they fit together (see segmerge.go), else on
// their own. kept is what remains of segs (the merged one is replaced).
func (w *segmentWriter) write(segs []segmentMeta, done []archived) (kept []segmentMeta, err error) {
	if src, ok := readForMerge(w.dir, segs, w.limit); ok {
		merged, err := w.writeMerged(src, done)
		if merged || err != nil {
			return segs[:len(segs)-1], err
		}
	}
	for _, a := range done {
		if err := w.add(a); err != nil {
			return nil, err
		}
	}
	return segs, w.flush()
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

// withFailures adds every refusal to the records of done (index: their
// positions by job): to its job's record when that job is archived too,
// else to a record of the job's refusals only; the records stay in job
// id order.
func withFailures(done []archived, index map[JobID]int, failures *btree.BTreeG[Failure]) []archived {
	n := len(done)
	failures.Ascend(func(f Failure) bool { // by job, then attempt
		if i, ok := index[f.Job]; ok {
			done[i].Failures = append(done[i].Failures, f)
		} else if last := len(done) - 1; last >= n && done[last].Job.ID == f.Job {
			done[last].Failures = append(done[last].Failures, f)
		} else {
			done = append(done, archived{Job: Job{ID: f.Job}, Failures: []Failure{f}})
		}
		return true
	})
	if len(done) > n {
		slices.SortFunc(done, func(a, b archived) int { return cmp.Compare(a.Job.ID, b.Job.ID) })
	}
	return done
}

// dropArchived removes an archived job, its activity and its refusals
// from the live tables; the archive is now its record, so an older forget
// no longer applies.
func (s *state) dropArchived(a archived) {
	if a.hasJob() {
		s.deleteJob(a.Job)
		s.forgotten.Delete(a.Job.ID)
	}
	s.dropActivity(a.Activity)
	s.dropFailures(a.Failures)
}

func (s *state) dropFailures(fs []Failure) {
	for _, f := range fs {
		s.failures.Delete(f)
	}
}

// afterArchive is the live state once snap (which archived done) is
// written: the ops made meanwhile kept. A job archived but no longer live
// was forgotten meanwhile: a forget replayed on snap records the same.
func (s *state) afterArchive(snap *state, done []archived) *state {
	next := s.clone()
	for _, a := range done {
		next.dropFailures(a.Failures) // refusals made meanwhile are newer attempts
		if !a.hasJob() {
			continue
		}
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
