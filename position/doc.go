// Package position is the one way hpcsched spells where something is in a
// text: a file name, a 1-based line and column and a 0-based byte offset,
// and errors that carry such a position.
//
// It is modelled on the standard library's go/token.Position and
// go/scanner.Error/ErrorList, which the Go toolchain uses for the same job.
// It corresponds to no Slurm function: Slurm's parsers log
// "file:line" themselves. Every parser of the module (hostlist, slurmconf,
// features, topology) reports positions with it, so a caller can find the
// place of any parse error with one call:
//
//	if pos, ok := position.Of(err); ok {
//		fmt.Println("at", pos)
//	}
//
// Package-specific error types (hostlist.Error, features.SyntaxError,
// topology.Error, ...) remain for errors.As, and carry a Position. A
// package adopts the type in three steps: its error gets a field
// "Pos position.Position" (At(src, offset) fills it for a one-string input;
// Position{File, Line, Column, Offset} for a file), a method
// "Position() position.Position" so Of finds it, and, for a limit that was
// exceeded, an Unwrap to the package's budget sentinel. A parser that
// reports several problems collects them in an ErrorList and returns
// list.Err() after Sort.
package position
