// Command replay runs an SWF trace through the library API (the
// simulator's building blocks, without the CLI):
//
//	go run ./examples/replay ../shared/data/traces/KTH-SP2-1996-2.1-cln.swf
package main
