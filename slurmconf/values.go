package slurmconf

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Unlimited is the Duration of a time limit written INFINITE or UNLIMITED.
// It compares greater than any finite limit.
const Unlimited time.Duration = math.MaxInt64

// UnlimitedNodes is a MaxNodes written UNLIMITED or INFINITE, or not given.
const UnlimitedNodes = -1

func (p Pair) int(min, max int64) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(p.Value), 10, 64)
	if err != nil {
		return 0, p.err("%s: %q is not a whole number", p.Key, p.Value)
	}
	if v < min || v > max {
		return 0, p.err("%s: %d is outside %d..%d", p.Key, v, min, max)
	}
	return v, nil
}

// count reads a non-negative int that fits in an int32, Slurm's widest
// count field.
func (p Pair) count() (int, error) {
	v, err := p.int(0, math.MaxInt32)
	return int(v), err
}

func (p Pair) bool() (bool, error) {
	switch strings.ToUpper(p.Value) {
	case "YES", "TRUE", "1", "ON":
		return true, nil
	case "NO", "FALSE", "0", "OFF":
		return false, nil
	}
	return false, p.err("%s: %q is not YES or NO", p.Key, p.Value)
}

// list splits a comma-separated value, dropping empty items.
func (p Pair) list() []string {
	var out []string
	for _, s := range strings.Split(p.Value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (p Pair) duration() (time.Duration, error) {
	d, err := ParseDuration(p.Value)
	if err != nil {
		return 0, p.err("%s: %v", p.Key, err)
	}
	return d, nil
}

// ParseDuration reads a Slurm time value: "minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes" or
// "days-hours:minutes:seconds"; INFINITE, UNLIMITED and -1 give Unlimited.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	switch strings.ToUpper(s) {
	case "INFINITE", "UNLIMITED", "-1":
		return Unlimited, nil
	case "":
		return 0, errorString("empty time value")
	}
	if s[0] == '-' {
		return 0, errorString("time value " + strconv.Quote(s) + " is negative (only -1, for unlimited, is allowed)")
	}
	var days int64
	rest := s
	hasDays := false
	if d, r, ok := strings.Cut(s, "-"); ok {
		n, err := timeField(d, 1<<20)
		if err != nil {
			return 0, errorString("time value " + strconv.Quote(s) + ": days: " + err.Error())
		}
		days, rest, hasDays = n, r, true
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return 0, errorString("time value " + strconv.Quote(s) + " has too many ':' fields")
	}
	f := make([]int64, len(parts))
	for i, p := range parts {
		limit := int64(59)
		if i == 0 {
			limit = 1 << 30
		}
		n, err := timeField(p, limit)
		if err != nil {
			return 0, errorString("time value " + strconv.Quote(s) + ": " + err.Error())
		}
		f[i] = n
	}
	var secs int64
	switch {
	case hasDays && len(f) == 1: // days-hours
		secs = f[0] * 3600
	case hasDays && len(f) == 2: // days-hours:minutes
		secs = f[0]*3600 + f[1]*60
	case len(f) == 3: // [days-]hours:minutes:seconds
		secs = f[0]*3600 + f[1]*60 + f[2]
	case len(f) == 2: // minutes:seconds
		secs = f[0]*60 + f[1]
	default: // minutes
		secs = f[0] * 60
	}
	secs += days * 86400
	if secs > math.MaxInt64/int64(time.Second) {
		return 0, errorString("time value " + strconv.Quote(s) + " is too large")
	}
	return time.Duration(secs) * time.Second, nil
}

func timeField(s string, limit int64) (int64, error) {
	if s == "" {
		return 0, errorString("empty field")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errorString(strconv.Quote(s) + " is not a number")
	}
	if n > limit {
		return 0, errorString(strconv.Quote(s) + " is too large")
	}
	return n, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// FormatDuration writes d the way Slurm prints limits: [days-]hh:mm:ss, or
// UNLIMITED.
func FormatDuration(d time.Duration) string {
	if d == Unlimited {
		return "UNLIMITED"
	}
	s := int64(d / time.Second)
	days, s := s/86400, s%86400
	hms := strconv.FormatInt(s/3600+100, 10)[1:] + ":" + strconv.FormatInt(s%3600/60+100, 10)[1:] + ":" + strconv.FormatInt(s%60+100, 10)[1:]
	if days > 0 {
		return strconv.FormatInt(days, 10) + "-" + hms
	}
	return hms
}

// scaled reads a count with an optional K, M, G or T suffix (powers of 1024),
// as GRES counts are written.
func scaled(s string) (int64, bool) {
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64/mult {
		return 0, false
	}
	return v * mult, true
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
