package selectnodes

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// Explanations in Slurm's words: durations as Slurm prints them, the
// compat-mode greedy failure worded for a user who named no nodes, and the
// places where the default mode deliberately answers differently.

// SlurmDuration formats d as Slurm prints time limits: M:SS under an hour,
// H:MM:SS under a day, D-HH:MM:SS beyond ("30:00", "3:00:00",
// "1-00:00:00"); a negative duration is "INVALID", the longest one
// (slurmconf.Unlimited, a limit given as none) "UNLIMITED". Sub-second
// parts are dropped, as Slurm keeps whole seconds.
func SlurmDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "INVALID"
	case d == math.MaxInt64:
		return "UNLIMITED"
	}
	s := int64(d / time.Second)
	days, h, m, sec := s/86400, s/3600%24, s/60%60, s%60
	switch {
	case days > 0:
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, h, m, sec)
	case h > 0:
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d", m, sec)
}

// slurmTime prints a duration in Slurm's format when formatted.
type slurmTime time.Duration

func (t slurmTime) String() string { return SlurmDuration(time.Duration(t)) }

// chainedTermError rewords the failure of an unbracketed counted term in
// SlurmCompat mode. Its "required nodes" were not the user's (-w) but the
// earlier terms' picks, which Slurm 22.05 keeps for every later term; the
// message names them and the way out.
func chainedTermError(c *Cluster, counts []countTerm, failed countTerm, earlier *bitset.BitSet, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	var before []string
	for _, ct := range counts {
		if ct.name == failed.name {
			break
		}
		before = append(before, ct.name)
	}
	all := termNames(counts)
	why := ""
	if e.Class != ErrNodeConfig {
		why = " (" + e.Reason + ")"
	}
	return &Error{Class: e.Class, Cause: e.Cause, Reason: fmt.Sprintf(
		"Slurm 22.05 satisfies the counted terms %s one after another and keeps each term's nodes for the next: "+
			"%s took %s, and %s cannot be met with %s among its nodes%s. The answer depends on the order of the "+
			"NodeName lines; [%s] lets each term pick its own nodes, and the default mode (no Slurm compatibility) "+
			"finds nodes for the terms as written",
		all, strings.Join(before, "&"), hostlist.Compress(c.Names(earlier)), failed.name,
		plural(int(earlier.Count()), "that node", "those nodes"), why, all)}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// defaultDiffers records, in the default mode, where Slurm 22.05 would
// have answered differently and why the default does not.
func (cx *call) defaultDiffers(format string, args ...any) {
	if !cx.c.compat {
		cx.step("differs from Slurm 22.05: "+format, args...)
	}
}
