// Package peers holds the simulators hpcsched's replay is measured
// against, and the tests that hold it to them. easy.py is a plain-Python
// EASY backfill replay of an SWF trace (processors as one counted
// resource, Lifka's shadow-time / extra-processors rule; see its
// docstring); BENCHMARKS.md compares its cost and its waits with
// `hpcsched simulate --backfill=easy`. conservative.py is the same replay
// with conservative backfill (every planned job holds its processors over
// its estimate), measured against `hpcsched simulate --backfill`. The
// package has no Go API.
package peers
