package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hpcsched/hpcsched/allocation"
)

// errDamaged: alloc check found damage; exit code 1 (as check's
// mismatches) after the report on stdout.
var errDamaged = fmt.Errorf("the ledger is damaged: %w", errMismatch)

// allocFile is `alloc check` and `alloc repair` on a ledger file (with no
// server running on it: both take its lock).
func allocFile(cmd string, args []string, stdout io.Writer) error {
	var storePath string
	var asJSON bool
	fs := newFlagSet("alloc "+cmd, "--store FILE [--json]")
	fs.String(&storePath, "store=FILE", "", "ledger file (required)")
	fs.Bool(&asJSON, "json", "print the report as JSON")
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	if storePath == "" {
		return usagef("alloc %s: --store is required", cmd)
	}
	check := allocation.CheckFile
	if cmd == "repair" {
		check = allocation.RepairFile
	}
	rep, err := check(storePath)
	if err != nil {
		return err
	}
	if asJSON {
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			return err
		}
	} else if err := printFileReport(stdout, cmd, storePath, rep); err != nil {
		return err
	}
	if cmd == "check" && rep.Damage != "" {
		return errDamaged
	}
	return nil
}

func printFileReport(w io.Writer, cmd, path string, rep allocation.FileReport) error {
	snapshot := fmt.Sprintf("snapshot through op %d", rep.SnapshotSeq)
	if rep.SnapshotSeq < 0 {
		snapshot = "no snapshot"
	}
	_, err := fmt.Fprintf(w, "%s: %s; %d intact journal ops after it (last op %d); %d archive segments holding %d intact completed jobs\n",
		path, snapshot, rep.Applied, rep.LastSeq, rep.Segments, rep.ArchivedJobs)
	for _, d := range rep.SegmentDamage {
		if err == nil {
			_, err = fmt.Fprintf(w, "segment damage: %s\n", d)
		}
	}
	for _, k := range rep.KeptSegments {
		if err == nil {
			_, err = fmt.Fprintf(w, "a damaged segment's intact records were kept; the damaged file is kept as %s\n", k)
		}
	}
	switch {
	case err != nil:
	case rep.Damage == "":
		_, err = fmt.Fprintln(w, "no damage found")
	case cmd == "check":
		_, err = fmt.Fprintf(w, "damage: %s\n%d bytes of journal follow the intact records\n"+
			"`hpcsched alloc repair --store %s` keeps the intact part and the damaged files beside it\n", rep.Damage, rep.LostBytes, path)
	default:
		_, err = fmt.Fprintf(w, "repaired: %s\nkept ops 1-%d; %d bytes dropped", rep.Damage, rep.LastSeq, rep.LostBytes)
		if err == nil && rep.Kept != "" {
			_, err = fmt.Fprintf(w, "; the damaged journal is kept as %s", rep.Kept)
		}
		if err == nil {
			_, err = fmt.Fprintln(w)
		}
	}
	return err
}
