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

// check says why req may not use partition p ("" when it may). A request
// that names no groups is refused by a partition with AllowGroups: the
// scheduler cannot vouch for an anonymous job. One that names no account
// or QOS is not checked against AllowAccounts or AllowQOS: in Slurm those
// default from the accounting database, which is not modelled here.
func (a *Access) check(p string, req *Request) string {
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
	case req.QOS != "" && !allowedBy(a.AllowQOS, req.QOS):
		return "partition " + p + " allows QOS " + strings.Join(a.AllowQOS, ",") + "; the job's is " + orNone([]string{req.QOS})
	case req.QOS != "" && slices.Contains(a.DenyQOS, req.QOS):
		return "partition " + p + " denies QOS " + req.QOS
	}
	return ""
}

func orNone(v []string) string {
	if len(v) == 0 || len(v) == 1 && v[0] == "" {
		return "none given"
	}
	return strings.Join(v, ",")
}
