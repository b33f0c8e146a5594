// Command quickstart builds a cluster in code, submits jobs and schedules
// them: the library in under forty lines.
package main
