package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/httpapi"
)

// allocAPI is a client of the alloc REST API.
type allocAPI struct {
	base, token string
	client      *http.Client
}

// get decodes GET path into v; a non-2xx answer is an error quoting the
// server's message.
func (a allocAPI) get(path string, v any) error {
	req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
	if err != nil {
		return err
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Error string }
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s %s: %s: %s", req.Method, path, resp.Status, e.Error)
		}
		return fmt.Errorf("%s %s: %s", req.Method, path, resp.Status)
	}
	return json.Unmarshal(body, v)
}

func allocClient(cmd string, args []string, stdout io.Writer) error {
	var server, token, account string
	var all, history bool
	fs := newFlagSet("alloc "+cmd, "[flags]")
	fs.String(&server, "server=URL", envOr("HPCSCHED_ALLOC_SERVER", "http://127.0.0.1:8080"), "API base URL ($HPCSCHED_ALLOC_SERVER)")
	// the environment's token is read after parsing, never shown as a default
	fs.String(&token, "token=TOKEN", "", "bearer token (default $HPCSCHED_ALLOC_TOKEN)")
	fs.String(&account, "account=NAME", "", "only this account")
	fs.Bool(&all, "all", "balance: inactive allocations too")
	fs.Bool(&history, "history", "activity: every credit, pre-debit and debit instead of per-user totals")
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	if token == "" {
		token = os.Getenv("HPCSCHED_ALLOC_TOKEN")
	}
	api := allocAPI{base: strings.TrimRight(server, "/"), token: token, client: &http.Client{Timeout: time.Minute}}
	q := url.Values{}
	if account != "" {
		q.Set("account", account)
	}
	if cmd == "balance" && !all {
		q.Set("active", "true")
	}
	var allocs []httpapi.AllocView
	if err := api.get("/alloc?"+q.Encode(), &allocs); err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	var err error
	switch {
	case cmd == "balance":
		printBalances(w, allocs)
	case cmd == "activity" && history:
		err = printHistory(w, api, allocs)
	case cmd == "activity":
		err = printUsage(w, api, allocs)
	default:
		err = printFailures(w, api, allocs)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

const day = "2006-01-02"

func printBalances(w io.Writer, allocs []httpapi.AllocView) {
	fmt.Fprintln(w, "ALLOC\tACCOUNT\tCATEGORY\tRESOURCE\tSTART\tEND\tCREDITS\tDEBITED\tPENDING\tBALANCE")
	for _, a := range allocs {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n", a.ID, a.Account, a.Category, a.Resource,
			a.Start.Format(day), a.End.Format(day), a.Credits, a.Debited, a.Pending, a.Balance)
	}
}

func printUsage(w io.Writer, api allocAPI, allocs []httpapi.AllocView) error {
	fmt.Fprintln(w, "ALLOC\tACCOUNT\tRESOURCE\tUID\tJOBS\tSU")
	for _, a := range allocs {
		var ds []allocation.OwnerDebit
		if err := api.get(fmt.Sprintf("/alloc/%d/debits", a.ID), &ds); err != nil {
			return err
		}
		for _, d := range ds {
			fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%d\t%d\n", a.ID, a.Account, a.Resource, d.UID, d.Jobs, d.Amount)
		}
	}
	return nil
}

func printHistory(w io.Writer, api allocAPI, allocs []httpapi.AllocView) error {
	fmt.Fprintln(w, "ALLOC\tACCOUNT\tTIME\tKIND\tAMOUNT\tJOB\tUID\tCOMMENT")
	for _, a := range allocs {
		var hist []allocation.Activity
		if err := api.get(fmt.Sprintf("/alloc/%d/activity", a.ID), &hist); err != nil {
			return err
		}
		for _, h := range hist {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%+d\t%d\t%d\t%s\n", a.ID, a.Account, h.Time.Format(time.RFC3339), h.Kind, h.Amount, h.Job, h.UID, h.Comment)
		}
	}
	return nil
}

func printFailures(w io.Writer, api allocAPI, allocs []httpapi.AllocView) error {
	var fs []allocation.Failure
	if err := api.get("/failure", &fs); err != nil {
		return err
	}
	byID := map[allocation.AllocationID]httpapi.AllocView{}
	for _, a := range allocs {
		byID[a.ID] = a
	}
	fmt.Fprintln(w, "JOB\tUID\tACCOUNT\tALLOC\tTIME\tWHY")
	for _, f := range fs {
		a, ok := byID[f.Allocation]
		if !ok { // another account's, or filtered out by --account
			continue
		}
		fmt.Fprintf(w, "%d\t%d\t%s\t%d\t%s\tneeded %d SU, %s allocation %d had %d\n", f.Job, f.UID, a.Account,
			f.Allocation, f.Time.Format(time.RFC3339), f.Amount, a.Resource, f.Allocation, f.Balance)
	}
	return nil
}
