package slurmstate

import (
	"io"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/position"
)

// Reservation is one line of `scontrol show reservation -o`.
type Reservation struct {
	Name       string
	Start, End time.Time
	Nodes      []string
	Flags      []string
	State      string // ACTIVE or INACTIVE
	Pos        position.Position
}

// ParseReservations reads `scontrol show reservation -o` ("No reservations
// in the system" is none); times are read in loc (nil is UTC).
func ParseReservations(r io.Reader, file string, loc *time.Location, lim Limits) ([]Reservation, error) {
	if loc == nil {
		loc = time.UTC
	}
	lim = lim.withDefaults()
	var out []Reservation
	err := eachLine(r, file, lim, func(line string, n int) error {
		if strings.HasPrefix(line, "No reservations") {
			return nil
		}
		pos := position.Position{File: file, Line: n}
		fields, bad := splitPairs(line)
		if bad > 0 {
			return position.Errorf(at(pos, bad), "expected Key=Value")
		}
		rv := Reservation{Pos: pos}
		for _, f := range fields {
			if err := rv.set(f, loc, lim); err != nil {
				return position.Wrapf(err, at(pos, f.col), "%s: %v", f.key, err)
			}
		}
		if rv.Name == "" {
			return position.Errorf(at(pos, 1), "no ReservationName=")
		}
		if !rv.End.IsZero() && rv.End.Before(rv.Start) {
			return position.Errorf(at(pos, 1), "reservation %s ends before it starts", rv.Name)
		}
		out = append(out, rv)
		return nil
	})
	return out, err
}

func (rv *Reservation) set(f field, loc *time.Location, lim Limits) error {
	var err error
	switch f.key {
	case "ReservationName":
		rv.Name = f.value
	case "StartTime":
		rv.Start, err = slurmTime(f.value, loc)
	case "EndTime":
		rv.End, err = slurmTime(f.value, loc)
	case "Nodes":
		if !noneValue(f.value) {
			rv.Nodes, err = hostlist.ExpandLimit(f.value, lim.MaxHosts)
		}
	case "Flags":
		rv.Flags = list(f.value)
	case "State":
		rv.State = strings.ToUpper(f.value)
	}
	return err
}
