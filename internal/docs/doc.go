// Package docs holds the tests that keep the project's prose true: the
// package map in DESIGN.md equals the packages that exist, every Go
// snippet in README.md compiles, and every command shown in a doc.go or
// in README.md runs as written. It has no code of its own.
package docs
