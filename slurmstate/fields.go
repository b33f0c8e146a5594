package slurmstate

import "strings"

// field is one Key=Value pair of a scontrol -o line; col is the 1-based
// column its key starts at.
type field struct {
	key, value string
	col        int
}

// splitPairs splits one `scontrol show ... -o` line into its pairs. Values
// may hold spaces (a node's Reason= is free text): a word that does not
// start a new Key= pair continues the value before it.
func splitPairs(line string) ([]field, int) {
	// one allocation a line: at most a pair a word (a node line has ~40)
	out := make([]field, 0, min(strings.Count(line, "=")+1, 256))
	col := 1
	for rest, more := line, true; more; {
		var w string
		w, rest, more = strings.Cut(rest, " ")
		switch k, v, ok := strings.Cut(w, "="); {
		case w == "":
		case ok && isKey(k):
			out = append(out, field{key: k, value: v, col: col})
		case len(out) > 0:
			out[len(out)-1].value += " " + w
		default:
			return out, col // a word before any pair
		}
		col += len(w) + 1
	}
	return out, 0
}

// isKey reports whether s looks like one of scontrol's keys: a letter,
// then letters, digits, '_' or ':' (CfgTRES, MCS_label, ...).
func isKey(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != '_' && c != ':' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// noneValue reports whether v is one of Slurm's spellings of "no value".
func noneValue(v string) bool {
	switch strings.ToLower(v) {
	case "", "(null)", "n/a", "none", "unknown":
		return true
	}
	return false
}
