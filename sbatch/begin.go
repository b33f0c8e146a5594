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
	if o == nil {
		return time.Time{}, noOptions()
	}
	if o.Begin == "" {
		return time.Time{}, nil
	}
	return ParseBegin(o.Begin, now)
}

// ParseBegin reads sbatch's --begin forms: now+N[seconds|minutes|hours|
// days|weeks] (seconds by default), HH:MM[:SS] with an optional AM or PM
// (today, or tomorrow when past), YYYY-MM-DD[THH:MM[:SS]], MMDDYY and
// MM/DD/YY (midnight starting that day, the year 20YY), and midnight,
// noon, fika (15:00), teatime (16:00), today, tomorrow. Times are in
// now's location.
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
	case "noon", "fika", "teatime":
		h := map[string]int{"noon": 12, "fika": 15, "teatime": 16}[s]
		return nextAt(day.Add(time.Duration(h)*time.Hour), now), nil
	}
	if rest, ok := strings.CutPrefix(s, "now+"); ok {
		return relative(rest, now)
	}
	if strings.Contains(s, "-") {
		return absolute(v, now.Location())
	}
	if d, ok := monthDayYear(s, now.Location()); ok {
		return d, nil
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

// monthDayYear reads MMDDYY or MM/DD/YY (s in lower case) as the start of
// that day in loc; ok is false for anything else, or a day the calendar
// lacks (02/30/26).
func monthDayYear(s string, loc *time.Location) (time.Time, bool) {
	digits := strings.ReplaceAll(s, "/", "")
	if !(len(s) == 6 || len(s) == 8 && s[2] == '/' && s[5] == '/') || len(digits) != 6 {
		return time.Time{}, false
	}
	var f [3]int
	for k := range f {
		n, err := strconv.Atoi(digits[2*k : 2*k+2])
		if err != nil || n < 0 {
			return time.Time{}, false
		}
		f[k] = n
	}
	t := time.Date(2000+f[2], time.Month(f[0]), f[1], 0, 0, 0, 0, loc)
	if t.Month() != time.Month(f[0]) || t.Day() != f[1] {
		return time.Time{}, false
	}
	return t, true
}

// clock reads HH:MM[:SS], with an optional am or pm (s in lower case;
// the hour then 1 to 12), as a time of day.
func clock(s string) (time.Duration, error) {
	var pm, twelve bool
	if rest, ok := strings.CutSuffix(s, "am"); ok {
		s, twelve = rest, true
	} else if rest, ok := strings.CutSuffix(s, "pm"); ok {
		s, twelve, pm = rest, true, true
	}
	d, err := clock24(s)
	if err != nil || !twelve {
		return d, err
	}
	h := d / time.Hour
	if h < 1 || h > 12 {
		return 0, errors.New("an hour of 1 to 12 before AM or PM, not " + strconv.Itoa(int(h)))
	}
	if h == 12 {
		d -= 12 * time.Hour // 12:30am is half past midnight, 12:30pm half past noon
	}
	if pm {
		d += 12 * time.Hour
	}
	return d, nil
}

// clock24 reads HH:MM[:SS] as a time of day.
func clock24(s string) (time.Duration, error) {
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
