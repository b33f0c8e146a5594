package sbatch

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// checkBegin validates a --begin value without knowing now.
func checkBegin(v string) error {
	_, err := ParseBegin(v, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
	return err
}

// BeginAt is --begin resolved against now (the zero Time when not given).
func (o *Options) BeginAt(now time.Time) (time.Time, error) {
	if o.Begin == "" {
		return time.Time{}, nil
	}
	return ParseBegin(o.Begin, now)
}

// ParseBegin reads sbatch's --begin forms: now+N[seconds|minutes|hours|
// days|weeks] (seconds by default), HH:MM[:SS] (today, or tomorrow when
// past), YYYY-MM-DD[THH:MM[:SS]], and midnight, noon, teatime (16:00),
// today, tomorrow. Times are in now's location.
func ParseBegin(v string, now time.Time) (time.Time, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	switch s {
	case "now":
		return now, nil
	case "today", "midnight":
		if s == "midnight" {
			return day.AddDate(0, 0, 1), nil
		}
		return day, nil
	case "tomorrow":
		return day.AddDate(0, 0, 1), nil
	case "noon", "teatime":
		h := map[string]int{"noon": 12, "teatime": 16}[s]
		return nextAt(day.Add(time.Duration(h)*time.Hour), now), nil
	}
	if rest, ok := strings.CutPrefix(s, "now+"); ok {
		return relative(rest, now)
	}
	if strings.Contains(s, "-") {
		return absolute(v, now.Location())
	}
	t, err := clock(s)
	if err != nil {
		return time.Time{}, errors.New("--begin " + strconv.Quote(v) + ": " + err.Error())
	}
	return nextAt(day.Add(t), now), nil
}

// nextAt is t, or t a day later when it has passed.
func nextAt(t, now time.Time) time.Time {
	if t.Before(now) {
		return t.AddDate(0, 0, 1)
	}
	return t
}

func relative(rest string, now time.Time) (time.Time, error) {
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(rest[:i], 10, 64)
	if err != nil || n > 100*366*86400 {
		return time.Time{}, errors.New("--begin now+" + rest + ": not a count of at most a century")
	}
	u, ok := beginUnit(rest[i:])
	if !ok {
		return time.Time{}, errors.New("--begin now+" + rest + ": unknown unit " + strconv.Quote(rest[i:]))
	}
	d := time.Duration(n) * u
	if d/u != time.Duration(n) || d > 100*366*24*time.Hour {
		return time.Time{}, errors.New("--begin now+" + rest + ": more than a century")
	}
	return now.Add(d), nil
}

func absolute(v string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("--begin " + strconv.Quote(v) + ": not YYYY-MM-DD[THH:MM[:SS]]")
}

// clock reads HH:MM[:SS] as a time of day.
func clock(s string) (time.Duration, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, errors.New("not HH:MM[:SS], now+N[unit] or a date")
	}
	limits := []int{23, 59, 59}
	var d time.Duration
	for k, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > limits[k] || len(p) > 2 {
			return 0, errors.New(strconv.Quote(p) + " is out of range")
		}
		d += time.Duration(n) * []time.Duration{time.Hour, time.Minute, time.Second}[k]
	}
	return d, nil
}

// beginUnit is the length of a --begin now+N unit, singular or plural.
func beginUnit(name string) (time.Duration, bool) {
	switch strings.TrimSuffix(name, "s") {
	case "", "sec", "second":
		return time.Second, true
	case "m", "min", "minute":
		return time.Minute, true
	case "h", "hour":
		return time.Hour, true
	case "d", "day":
		return 24 * time.Hour, true
	case "w", "week":
		return 7 * 24 * time.Hour, true
	}
	return 0, false
}
