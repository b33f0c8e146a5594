package httpapi

import (
	"cmp"
	"slices"
	"strconv"
)

// Every list is paged: ?limit=N (at most MaxPage, DefaultPage when
// absent) and ?after=ID (the last ID of the previous page). Items come in
// ID order; when more follow, the X-Next-After header gives the cursor of
// the next page.
const (
	DefaultPage = 1000
	MaxPage     = 10000
)

// NextAfterHeader carries the cursor of the next page.
const NextAfterHeader = "X-Next-After"

type pageQuery struct {
	after uint64
	limit int
}

func parsePage(r *request) (pageQuery, error) {
	q := pageQuery{limit: DefaultPage}
	after, _, err := queryUint(r, "after", 63)
	if err != nil {
		return q, err
	}
	limit, byLimit, err := queryUint(r, "limit", 32)
	if err != nil {
		return q, err
	}
	if byLimit {
		if limit == 0 || limit > MaxPage {
			return q, fieldErr("limit", "%d is not in 1..%d", limit, MaxPage)
		}
		q.limit = int(limit)
	}
	q.after = after
	return q, nil
}

// page sorts items by key and returns those after the cursor, at most
// the limit, setting the next page's cursor when more follow.
func page[T any, K ~int64 | ~uint64](r *request, items []T, key func(T) K) ([]T, error) {
	q, err := parsePage(r)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(items, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	start, _ := slices.BinarySearchFunc(items, q.after, func(t T, after uint64) int {
		k := key(t)
		if k < 0 { // IDs are positive; a negative key sorts first
			return -1
		}
		return cmp.Compare(uint64(k), after+1)
	})
	items = items[start:]
	if len(items) > q.limit {
		items = items[:q.limit]
		r.header.Set(NextAfterHeader, strconv.FormatUint(uint64(key(items[len(items)-1])), 10))
	}
	if items == nil {
		items = []T{}
	}
	return items, nil
}
