package main

import (
	"bytes"
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

// do sends method path with body (JSON-encoded when not nil) and decodes
// the answer into v (when not nil); a non-2xx answer is an error quoting
// the server's message. It returns the answer's header.
func (a allocAPI) do(method, path string, body, v any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return nil, err
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Error string }
		if json.Unmarshal(out, &e) == nil && e.Error != "" {
			return nil, fmt.Errorf("%s %s: %s: %s", req.Method, path, resp.Status, e.Error)
		}
		return nil, fmt.Errorf("%s %s: %s", req.Method, path, resp.Status)
	}
	if v == nil || len(out) == 0 {
		return resp.Header, nil
	}
	return resp.Header, json.Unmarshal(out, v)
}

// get decodes GET path into v: for a list, every page (the server pages
// every list; X-Next-After gives the next page's cursor).
func (a allocAPI) get(path string, v any) error {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var items []json.RawMessage
	next := ""
	for {
		var page json.RawMessage
		h, err := a.do(http.MethodGet, path+next, nil, &page)
		if err != nil {
			return err
		}
		var chunk []json.RawMessage
		if json.Unmarshal(page, &chunk) != nil { // one object, not a list
			return json.Unmarshal(page, v)
		}
		items = append(items, chunk...)
		after := h.Get(httpapi.NextAfterHeader)
		if after == "" {
			break
		}
		next = sep + "after=" + url.QueryEscape(after)
	}
	all, err := json.Marshal(items)
	if err != nil {
		return err
	}
	if items == nil {
		all = []byte("[]")
	}
	return json.Unmarshal(all, v)
}

// clientToken is the bearer token: --token-file, else --token (which
// other users may see in ps: prefer the file or the environment), else
// $HPCSCHED_TOKEN (or the older $HPCSCHED_ALLOC_TOKEN).
func clientToken(flag, file string) (string, error) {
	if file != "" {
		data, err := readTokenFile(file)
		if err != nil {
			return "", usagef("--token-file: %v", err)
		}
		return data, nil
	}
	if flag != "" {
		return flag, nil
	}
	for _, env := range []string{"HPCSCHED_TOKEN", "HPCSCHED_ALLOC_TOKEN"} {
		if t := os.Getenv(env); t != "" {
			return t, nil
		}
	}
	return "", nil
}

// readTokenFile is the first line of a file of at most 4 KiB.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "", fmt.Errorf("%s: no token on its first line", path)
	}
	return line, nil
}

func allocClient(cmd string, args []string, stdout io.Writer) error {
	var server, token, tokenFile, account string
	var all, history, asJSON bool
	fs := newFlagSet("alloc "+cmd, "[flags]")
	fs.String(&server, "server=URL", envOr("HPCSCHED_ALLOC_SERVER", "http://127.0.0.1:8080"), "API base URL ($HPCSCHED_ALLOC_SERVER)")
	// the environment's token is read after parsing, never shown as a default
	fs.String(&tokenFile, "token-file=FILE", "", "read the bearer token from FILE (default $HPCSCHED_TOKEN)")
	fs.String(&token, "token=TOKEN", "", "bearer token (visible in ps: prefer --token-file or $HPCSCHED_TOKEN)")
	fs.String(&account, "account=NAME", "", "only this account")
	fs.Bool(&asJSON, "json", "print the rows as a JSON array instead of a table")
	switch cmd { // each command lists only its own flags
	case "balance":
		fs.Bool(&all, "all", "inactive allocations too")
	case "activity":
		fs.Bool(&history, "history", "every credit, pre-debit and debit instead of per-user totals")
	}
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	token, err := clientToken(token, tokenFile)
	if err != nil {
		return err
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
	var rows any
	var print func(io.Writer)
	switch {
	case cmd == "balance":
		if allocs == nil {
			allocs = []httpapi.AllocView{}
		}
		rows, print = allocs, func(w io.Writer) { printBalances(w, allocs) }
	case cmd == "activity" && history:
		var hist []historyRow
		hist, err = fetchHistory(api, allocs)
		rows, print = hist, func(w io.Writer) { printHistory(w, hist) }
	case cmd == "activity":
		var use []debitRow
		use, err = fetchUsage(api, allocs)
		rows, print = use, func(w io.Writer) { printUsage(w, use) }
	default:
		var fails []failureRow
		fails, err = fetchFailures(api, allocs)
		rows, print = fails, func(w io.Writer) { printFailures(w, fails) }
	}
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSONRows(stdout, rows)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	print(w)
	return w.Flush()
}

// writeJSONRows prints rows (a slice, not nil) as a JSON array.
func writeJSONRows(w io.Writer, rows any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
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

// debitRow is one owner's debits against an allocation.
type debitRow struct {
	Account  string              `json:"account"`
	Resource allocation.Resource `json:"resource"`
	allocation.OwnerDebit
}

func fetchUsage(api allocAPI, allocs []httpapi.AllocView) ([]debitRow, error) {
	rows := []debitRow{}
	for _, a := range allocs {
		var ds []allocation.OwnerDebit
		if err := api.get(fmt.Sprintf("/alloc/%d/debits", a.ID), &ds); err != nil {
			return nil, err
		}
		for _, d := range ds {
			rows = append(rows, debitRow{Account: a.Account, Resource: a.Resource, OwnerDebit: d})
		}
	}
	return rows, nil
}

func printUsage(w io.Writer, rows []debitRow) {
	fmt.Fprintln(w, "ALLOC\tACCOUNT\tRESOURCE\tUID\tJOBS\tSU")
	for _, d := range rows {
		fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%d\t%d\n", d.Allocation, d.Account, d.Resource, d.UID, d.Jobs, d.Amount)
	}
}

// historyRow is one activity record of an allocation.
type historyRow struct {
	Account string `json:"account"`
	allocation.Activity
}

func fetchHistory(api allocAPI, allocs []httpapi.AllocView) ([]historyRow, error) {
	rows := []historyRow{}
	for _, a := range allocs {
		var hist []allocation.Activity
		if err := api.get(fmt.Sprintf("/alloc/%d/activity", a.ID), &hist); err != nil {
			return nil, err
		}
		for _, h := range hist {
			rows = append(rows, historyRow{Account: a.Account, Activity: h})
		}
	}
	return rows, nil
}

func printHistory(w io.Writer, rows []historyRow) {
	fmt.Fprintln(w, "ALLOC\tACCOUNT\tTIME\tKIND\tAMOUNT\tJOB\tUID\tCOMMENT")
	for _, h := range rows {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%+d\t%d\t%d\t%s\n", h.Allocation, h.Account, h.Time.Format(time.RFC3339), h.Kind, h.Amount, h.Job, h.UID, h.Comment)
	}
}

// failureRow is one refusal, with the account and resource of its
// allocation.
type failureRow struct {
	Account  string              `json:"account"`
	Resource allocation.Resource `json:"resource"`
	allocation.Failure
}

func fetchFailures(api allocAPI, allocs []httpapi.AllocView) ([]failureRow, error) {
	var fs []allocation.Failure
	if err := api.get("/failure", &fs); err != nil {
		return nil, err
	}
	byID := map[allocation.AllocationID]httpapi.AllocView{}
	for _, a := range allocs {
		byID[a.ID] = a
	}
	rows := []failureRow{}
	for _, f := range fs {
		if a, ok := byID[f.Allocation]; ok { // else another account's, or filtered out by --account
			rows = append(rows, failureRow{Account: a.Account, Resource: a.Resource, Failure: f})
		}
	}
	return rows, nil
}

func printFailures(w io.Writer, rows []failureRow) {
	fmt.Fprintln(w, "JOB\tUID\tACCOUNT\tALLOC\tTIME\tWHY")
	for _, f := range rows {
		fmt.Fprintf(w, "%d\t%d\t%s\t%d\t%s\tneeded %d SU, %s allocation %d had %d\n", f.Job, f.UID, f.Account,
			f.Allocation, f.Time.Format(time.RFC3339), f.Amount, f.Resource, f.Allocation, f.Balance)
	}
}
