// Package peers holds the simulators hpcsched's replay is measured
// against, and the tests that hold it to them. easy.py is a plain-Python
// EASY backfill replay of an SWF trace (processors as one counted
// resource, Lifka's shadow-time / extra-processors rule; see its
// docstring); BENCHMARKS.md compares its cost and its waits with
// `hpcsched simulate --backfill=easy`. The package has no Go API.
package peers
