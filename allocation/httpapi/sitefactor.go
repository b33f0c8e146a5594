package httpapi

import (
	"fmt"
	"net/http"

	"github.com/hpcsched/hpcsched/allocation"
)

// siteFactor is GET /sitefactor?account=A&partition=P: the site factor of
// the account's jobs in the partition now (the HADM paper's f_credit, f_temporal
// and their power-rule product), for callers who may see the account's
// project. 404 when the partition bills nothing or no allocation is active.
func (h *Handler) siteFactor(r *request) (int, any, error) {
	account, partition := r.URL.Query().Get("account"), r.URL.Query().Get("partition")
	if account == "" || partition == "" {
		return 0, nil, fieldErr("account", "account= and partition= are both required")
	}
	projects, err := h.visibleProjects(r)
	if err != nil {
		return 0, nil, err
	}
	seen := false
	for _, p := range projects {
		seen = seen || p.Account == account
	}
	now := h.now()
	notFound := fmt.Errorf("%w: no site factor for account %q in partition %q", allocation.ErrNotFound, account, partition)
	if !seen {
		return 0, nil, notFound
	}
	sf, err := h.ledger.SiteFactors(r.Context(), nil, now)
	if err != nil {
		return 0, nil, err
	}
	f, ok := sf.Of(account, partition, now)
	if !ok {
		return 0, nil, notFound
	}
	return http.StatusOK, f, nil
}
