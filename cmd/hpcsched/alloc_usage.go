package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/httpapi"
)

// usageRow is one line of a usage report: the SU an owner's jobs were
// debited on one allocation within the period (the shape an ACCESS-style
// usage report takes: allocation, project, resource, user, period, jobs,
// charge).
type usageRow struct {
	Allocation allocation.AllocationID `json:"allocation_id"`
	Account    string                  `json:"account"`
	Category   string                  `json:"category"`
	Resource   allocation.Resource     `json:"resource"`
	UID        uint32                  `json:"uid"`
	From       time.Time               `json:"from"`
	To         time.Time               `json:"to"`
	Jobs       int64                   `json:"jobs"`
	SU         int64                   `json:"su"`
}

// allocUsageCmd is `alloc usage --from DATE --to DATE [--format csv|json]`:
// the debits of the period [from, to), per allocation and owner.
func allocUsageCmd(args []string, stdout io.Writer) error {
	var a adminFlags
	var from, to, format, account string
	fs := newFlagSet("alloc usage", "--from DATE --to DATE [--format csv|json] [--account NAME]")
	fs.String(&from, "from=DATE", "", "first day of the period (YYYY-MM-DD, UTC, or RFC 3339) (required)")
	fs.String(&to, "to=DATE", "", "the day after the period (exclusive) (required)")
	fs.String(&format, "format=FORMAT", "csv", "csv or json")
	fs.String(&account, "account=NAME", "", "only this account")
	a.add(fs)
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	if from == "" || to == "" {
		return usagef("alloc usage: --from and --to are required")
	}
	if format != "csv" && format != "json" {
		return usagef("alloc usage: --format %q is neither csv nor json", format)
	}
	start, err := parseDay("--from", from)
	if err != nil {
		return err
	}
	end, err := parseDay("--to", to)
	if err != nil {
		return err
	}
	if !start.Before(end) {
		return usagef("alloc usage: --to must be after --from")
	}
	api, err := a.api()
	if err != nil {
		return err
	}
	rows, err := usageRows(api, account, start, end)
	if err != nil {
		return err
	}
	if format == "json" {
		return json.NewEncoder(stdout).Encode(rows)
	}
	return writeUsageCSV(stdout, rows)
}

// usageRows sums each allocation's debit activity in [start, end) per uid.
func usageRows(api allocAPI, account string, start, end time.Time) ([]usageRow, error) {
	q := url.Values{}
	if account != "" {
		q.Set("account", account)
	}
	var allocs []httpapi.AllocView
	if err := api.get("/alloc?"+q.Encode(), &allocs); err != nil {
		return nil, err
	}
	rows := []usageRow{}
	for _, al := range allocs {
		if !al.Start.Before(end) || !start.Before(al.End) {
			continue
		}
		var hist []allocation.Activity
		if err := api.get(fmt.Sprintf("/alloc/%d/activity", al.ID), &hist); err != nil {
			return nil, err
		}
		byUID := map[uint32]int{}
		for _, h := range hist {
			if h.Kind != allocation.KindDebit || h.Time.Before(start) || !h.Time.Before(end) {
				continue
			}
			i, ok := byUID[h.UID]
			if !ok {
				i = len(rows)
				byUID[h.UID] = i
				rows = append(rows, usageRow{Allocation: al.ID, Account: al.Account, Category: al.Category, Resource: al.Resource,
					UID: h.UID, From: start, To: end})
			}
			rows[i].Jobs++
			rows[i].SU -= h.Amount // debits are negative
		}
	}
	return rows, nil
}

func writeUsageCSV(w io.Writer, rows []usageRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"allocation_id", "account", "category", "resource", "uid", "from", "to", "jobs", "su"})
	for _, r := range rows {
		cw.Write([]string{strconv.FormatInt(int64(r.Allocation), 10), r.Account, r.Category, string(r.Resource),
			strconv.FormatUint(uint64(r.UID), 10), r.From.Format(time.RFC3339), r.To.Format(time.RFC3339),
			strconv.FormatInt(r.Jobs, 10), strconv.FormatInt(r.SU, 10)})
	}
	cw.Flush()
	return cw.Error()
}
