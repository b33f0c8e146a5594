package selectnodes

import (
	"slices"
	"strings"
)

// Access is who may use a partition, as slurm.conf's AllowGroups,
// AllowAccounts, DenyAccounts, AllowQOS and DenyQOS say. A nil Allow list
// (or one holding "ALL") allows everyone; Deny lists are applied after.
// Root (Request.Root) may use every partition, as in Slurm.
type Access struct {
	AllowGroups, AllowAccounts, DenyAccounts, AllowQOS, DenyQOS []string
}

// clone is a with lists of its own. Most partitions have none: a
// without a list is returned as it is (empty lists show the caller
// nothing of the cluster's).
func (a Access) clone() Access {
	if a.empty() {
		return a
	}
	return Access{AllowGroups: slices.Clone(a.AllowGroups), AllowAccounts: slices.Clone(a.AllowAccounts),
		DenyAccounts: slices.Clone(a.DenyAccounts), AllowQOS: slices.Clone(a.AllowQOS), DenyQOS: slices.Clone(a.DenyQOS)}
}

// empty reports whether a has no list: everyone may use the partition.
func (a *Access) empty() bool {
	return len(a.AllowGroups)+len(a.AllowAccounts)+len(a.DenyAccounts)+len(a.AllowQOS)+len(a.DenyQOS) == 0
}

// allowedBy reports whether list allows one of values (nil or "ALL": all).
func allowedBy(list []string, values ...string) bool {
	if len(list) == 0 || slices.Contains(list, "ALL") {
		return true
	}
	for _, v := range values {
		if v != "" && slices.Contains(list, v) {
			return true
		}
	}
	return false
}

// DefaultQOS is the QOS a job that names none is judged by where QOS is
// checked (WithQOSChecks): Slurm's default association QOS, "normal".
const DefaultQOS = "normal"

// check says why req may not use partition p ("" when it may). A request
// that names no groups is refused by a partition with AllowGroups: the
// scheduler cannot vouch for an anonymous job. One that names no account
// is not checked against AllowAccounts: in Slurm its account defaults from
// the accounting database, which is not modelled here. Its QOS is checked
// only under qos (WithQOSChecks), as DefaultQOS when it names none.
func (a *Access) check(p string, req *Request, qos bool) string {
	if a.empty() {
		return "" // no list (most partitions): everyone, at every selection
	}
	switch {
	case req.Root:
		return ""
	case !allowedBy(a.AllowGroups, req.Groups...):
		return "partition " + p + " allows groups " + strings.Join(a.AllowGroups, ",") + "; the job's are " + orNone(req.Groups)
	case req.Account != "" && !allowedBy(a.AllowAccounts, req.Account):
		return "partition " + p + " allows accounts " + strings.Join(a.AllowAccounts, ",") + "; the job's is " + orNone([]string{req.Account})
	case req.Account != "" && slices.Contains(a.DenyAccounts, req.Account):
		return "partition " + p + " denies account " + req.Account
	case qos && !allowedBy(a.AllowQOS, qosOf(req)):
		return "partition " + p + " allows QOS " + strings.Join(a.AllowQOS, ",") + "; the job's is " + qosText(req)
	case qos && slices.Contains(a.DenyQOS, qosOf(req)):
		return "partition " + p + " denies QOS " + qosText(req)
	}
	return ""
}

// qosOf is the QOS req is judged by: its own, else DefaultQOS.
func qosOf(req *Request) string {
	if req.QOS == "" {
		return DefaultQOS
	}
	return req.QOS
}

// qosText names req's QOS for a refusal, saying when it is the default.
func qosText(req *Request) string {
	if req.QOS == "" {
		return DefaultQOS + " (the default: the job names none)"
	}
	return req.QOS
}

func orNone(v []string) string {
	if len(v) == 0 || len(v) == 1 && v[0] == "" {
		return "none given"
	}
	return strings.Join(v, ",")
}
