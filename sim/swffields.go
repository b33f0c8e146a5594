package sim

// SWFFields are the 18 standard fields of a trace's job line as the
// reader read them: field n (1-based, as the SWF definition numbers them)
// at index n-1, -1 where the trace says unknown, a fraction kept where the
// trace wrote one ("12.5"). An integer field holds the integer exactly
// (the reader's budgets keep every field under 2^53), so a writer that
// formats a value with strconv.FormatFloat(v, 'f', -1, 64) spells it as
// the trace did, leading zeros and signs aside.
//
// The fields are what the trace said of its original run, not what a
// replay made of them: a replay decides the wait (field 3), the run time
// (4), the allocated processors (5), the status (11) and the partition
// (16) anew, and reads the request (8, 9) under its Conventions.
type SWFFields [18]float64
