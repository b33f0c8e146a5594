package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
)

// adminFlags are the flags every operator command shares.
type adminFlags struct {
	server, token, tokenFile string
	asJSON                   bool
}

func (a *adminFlags) add(fs *flagSet) {
	fs.String(&a.server, "server=URL", envOr("HPCSCHED_ALLOC_SERVER", "http://127.0.0.1:8080"), "API base URL ($HPCSCHED_ALLOC_SERVER)")
	fs.String(&a.tokenFile, "token-file=FILE", "", "read the bearer token from FILE (default $HPCSCHED_TOKEN)")
	fs.String(&a.token, "token=TOKEN", "", "bearer token (visible in ps: prefer --token-file or $HPCSCHED_TOKEN)")
	fs.Bool(&a.asJSON, "json", "print the server's answer as JSON")
}

func (a *adminFlags) api() (allocAPI, error) {
	token, err := clientToken(a.token, a.tokenFile)
	if err != nil {
		return allocAPI{}, err
	}
	return allocAPI{base: strings.TrimRight(a.server, "/"), token: token, client: &http.Client{Timeout: time.Minute}}, nil
}

// print writes v as JSON with --json, else the line text gives.
func (a *adminFlags) print(w io.Writer, v any, text func() string) error {
	if a.asJSON {
		return json.NewEncoder(w).Encode(v)
	}
	_, err := fmt.Fprintln(w, text())
	return err
}

// allocProjectCmd is `alloc project create`.
func allocProjectCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return usagef("usage: hpcsched alloc project create --name GROUP --gid GID [--account NAME]")
	}
	var a adminFlags
	var name, account string
	var gid uint64
	fs := newFlagSet("alloc project create", "--name GROUP --gid GID [--account NAME]")
	fs.String(&name, "name=GROUP", "", "the workgroup's Unix group name (required)")
	fs.Uint64(&gid, "gid=GID", 0, "the workgroup's gid")
	fs.String(&account, "account=NAME", "", "its Slurm account (default: the group name)")
	a.add(fs)
	if err := fs.NoOperands(args[1:], stdout); err != nil {
		return err
	}
	if name == "" {
		return usagef("alloc project create: --name is required")
	}
	if gid > 1<<32-1 {
		return usagef("alloc project create: --gid %d is not a 32-bit gid", gid)
	}
	if account == "" {
		account = name
	}
	api, err := a.api()
	if err != nil {
		return err
	}
	var p allocation.Project
	if _, err := api.do(http.MethodPost, "/project", allocation.Project{Name: name, GID: uint32(gid), Account: account}, &p); err != nil {
		return err
	}
	return a.print(stdout, p, func() string {
		return fmt.Sprintf("project %d: group %s (gid %d), account %s", p.ID, p.Name, p.GID, p.Account)
	})
}

// allocCreateCmd is `alloc create`: an allocation of an account's project.
func allocCreateCmd(args []string, stdout io.Writer) error {
	var a adminFlags
	var account, resource, start, end, category string
	fs := newFlagSet("alloc create", "--account NAME --start DATE --end DATE [--resource CPU|GPU] [--category NAME]")
	fs.String(&account, "account=NAME", "", "the project's Slurm account (required)")
	fs.String(&resource, "resource=TYPE", "CPU", "CPU or GPU")
	fs.String(&start, "start=DATE", "", "first day (YYYY-MM-DD, UTC) or RFC 3339 time (required)")
	fs.String(&end, "end=DATE", "", "the day after the last (exclusive; YYYY-MM-DD or RFC 3339) (required)")
	fs.String(&category, "category=NAME", "", "the allocation's category (startup, research, education, ...)")
	a.add(fs)
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	if account == "" || start == "" || end == "" {
		return usagef("alloc create: --account, --start and --end are required")
	}
	from, err := parseDay("--start", start)
	if err != nil {
		return err
	}
	to, err := parseDay("--end", end)
	if err != nil {
		return err
	}
	api, err := a.api()
	if err != nil {
		return err
	}
	var ps []allocation.Project
	if err := api.get("/project?account="+url.QueryEscape(account), &ps); err != nil {
		return err
	}
	if len(ps) != 1 {
		return fmt.Errorf("alloc create: no project has account %q (hpcsched alloc project create makes one)", account)
	}
	body := map[string]any{"project_id": ps[0].ID, "category": category, "resource": resource,
		"start": from.Format(time.RFC3339), "end": to.Format(time.RFC3339)}
	var out allocation.Allocation
	if _, err := api.do(http.MethodPost, "/alloc", body, &out); err != nil {
		return err
	}
	return a.print(stdout, out, func() string {
		what := string(out.Resource)
		if out.Category != "" {
			what = out.Category + " " + what
		}
		return fmt.Sprintf("allocation %d: %s for %s, [%s, %s)", out.ID, what, account, out.Start.Format(day), out.End.Format(day))
	})
}

func parseDay(flag, s string) (time.Time, error) {
	if t, err := time.Parse(day, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, usagef("%s %q is neither YYYY-MM-DD nor an RFC 3339 time", flag, s)
	}
	return t, nil
}

// allocCreditCmd is `alloc credit ALLOC --amount SU`.
func allocCreditCmd(args []string, stdout io.Writer) error {
	var a adminFlags
	var amount uint64
	var comment string
	fs := newFlagSet("alloc credit", "ALLOC --amount SU [--comment TEXT]")
	fs.Uint64(&amount, "amount=SU", 0, "service units to add (required, positive)")
	fs.String(&comment, "comment=TEXT", "", "why (kept with the credit)")
	a.add(fs)
	ops, err := fs.Parse(args, stdout)
	if err != nil {
		return err
	}
	if len(ops) != 1 || amount == 0 || amount > 1<<63-1 {
		return usagef("alloc credit: give one allocation id and a positive --amount")
	}
	id, err := strconv.ParseUint(ops[0], 10, 63)
	if err != nil || id == 0 {
		return usagef("alloc credit: %q is not an allocation id", ops[0])
	}
	api, err := a.api()
	if err != nil {
		return err
	}
	var act allocation.Activity
	if _, err := api.do(http.MethodPost, fmt.Sprintf("/alloc/%d/credit", id), map[string]any{"amount": amount, "comment": comment}, &act); err != nil {
		return err
	}
	return a.print(stdout, act, func() string { return fmt.Sprintf("allocation %d: credited %d SU", act.Allocation, act.Amount) })
}

// allocJobCmd is `alloc job cancel JOB`: a pre-debit whose job never
// started is returned in full.
func allocJobCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "cancel" {
		return usagef("usage: hpcsched alloc job cancel JOB")
	}
	var a adminFlags
	fs := newFlagSet("alloc job cancel", "JOB")
	a.add(fs)
	ops, err := fs.Parse(args[1:], stdout)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return usagef("alloc job cancel: give one job id")
	}
	id, err := strconv.ParseUint(ops[0], 10, 63)
	if err != nil || id == 0 {
		return usagef("alloc job cancel: %q is not a job id", ops[0])
	}
	api, err := a.api()
	if err != nil {
		return err
	}
	if _, err := api.do(http.MethodDelete, fmt.Sprintf("/job/%d", id), nil, nil); err != nil {
		return err
	}
	return a.print(stdout, map[string]any{"job_id": id, "cancelled": true}, func() string {
		return fmt.Sprintf("job %d: pre-debit returned", id)
	})
}
