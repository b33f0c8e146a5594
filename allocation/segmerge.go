package allocation

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A compaction archives a few hundred jobs; a segment of its own each
// would leave a site with thousands of small files (each an entry in the
// snapshot and a stat at every open). So a compaction rewrites the
// newest segment, when it is below the size limit, together with the new
// records into a new file (the next number), and the snapshot lists that
// file in the newest one's place: segments fill up to the limit and their
// number follows the archived bytes, not the compactions.
//
// The replaced segment is removed only once a snapshot that no longer
// lists it is durable; a crash before that leaves it beside the ledger,
// listed nowhere, and the next OpenFile removes it. Until then the old
// snapshot and the old segment are whole, so a crash at any step leaves a
// ledger that opens with every record.

// mergeNewest is the records to write for done (in job id order) and the
// index entries they replace: done alone, or, when the newest segment of
// segs has an allocation index (version 2) and is below limit bytes, its
// records and done merged in job id order, a job with records in both
// getting one record (see joinArchived). A segment that cannot be read
// is left as it is (done alone): its damage is reported when it is read.
func mergeNewest(dir string, segs []segmentMeta, done []archived, limit int64) ([]archived, []segmentMeta) {
	if len(segs) == 0 {
		return done, segs
	}
	last := segs[len(segs)-1]
	if last.Index == 0 || last.Size >= limit {
		return done, segs
	}
	var old []archived
	if _, _, err := scanSegment(dir, last, func(a archived) bool { old = append(old, a); return true }); err != nil {
		return done, segs
	}
	merged := make([]archived, 0, len(old)+len(done))
	i, k := 0, 0
	for i < len(old) || k < len(done) {
		switch {
		case k == len(done) || (i < len(old) && old[i].Job.ID < done[k].Job.ID):
			merged = append(merged, old[i])
			i++
		case i == len(old) || done[k].Job.ID < old[i].Job.ID:
			merged = append(merged, done[k])
			k++
		default:
			merged = append(merged, joinArchived(old[i], done[k]))
			i, k = i+1, k+1
		}
	}
	return merged, segs[:len(segs)-1]
}

// joinArchived is one record for a job archived in an older compaction
// (older) and again now (newer), so a segment keeps one record per job
// and a lookup finds what it found in the newer of two segments: the
// newer job record when there is one (a job forgotten and run again, or
// refused before and completed now), else the older; the activity of both
// (every archived activity is history); the refusals of both, in
// attempt order (the newer ones are later attempts).
func joinArchived(older, newer archived) archived {
	j := archived{Job: newer.Job}
	if !newer.hasJob() {
		j.Job = older.Job
	}
	j.Activity = append(slices.Clip(older.Activity), newer.Activity...)
	j.Failures = append(slices.Clip(older.Failures), newer.Failures...)
	if len(j.Failures) == 0 {
		j.Failures = nil
	}
	return j
}

// removeSegments removes the files of segments a durable snapshot no
// longer lists (a failure leaves a file that the next open removes).
func removeSegments(dir string, gone []segmentMeta) {
	for _, m := range gone {
		if m.checkName() == nil {
			os.Remove(filepath.Join(dir, m.Name))
		}
	}
}

// removeUnlisted removes the segment files beside path that the snapshot
// does not list and that are numbered below the next segment: segments a
// merge replaced, left by a crash before their removal. (Those numbered
// from the next on are a failed compaction's and are written again.)
func removeUnlisted(path string, segs []segmentMeta) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	listed := make(map[string]bool, len(segs))
	for _, m := range segs {
		listed[m.Name] = true
	}
	next := nextSegment(segs)
	for _, e := range entries {
		if n, ok := segmentNumber(e.Name(), base); ok && n < next && !listed[e.Name()] && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// segmentNumber is NNNNNN of a file named base.seg.NNNNNN (digits only,
// as the writer names them: a repair's ".damaged" copy is not one).
func segmentNumber(name, base string) (int, bool) {
	digits, ok := strings.CutPrefix(name, base+".seg.")
	if !ok || len(digits) < 6 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}
