package allocation

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Category is an allocation category's limit (the HADM paper: "a single
// category determining resource limit range and purpose"): the most
// credit an allocation of the category may be granted in total, in SU (0,
// or a negative value ParseCategories refuses: no limit). A site names its categories (startup, research, education,
// ...) and their limits with WithCategories.
type Category struct {
	MaxCredit int64 `json:"max_credit"`
}

// WithCategories makes the Ledger enforce categories: an allocation must
// name one of them (ErrInvalid otherwise, on create and update), and a
// credit that would take an allocation's total credit past its category's
// MaxCredit is refused (ErrInvalid naming the limit). Without it any
// category is accepted and credit is unlimited. The check of a credit
// reads the balance and then credits: two concurrent credits to one
// allocation may together pass the limit (credits are an operator's,
// rare, act).
func WithCategories(cs map[string]Category) Option {
	return func(l *Ledger) {
		l.categories = make(map[string]Category, len(cs))
		for name, c := range cs {
			l.categories[strings.TrimSpace(name)] = c
		}
	}
}

// Categories are the enforced categories (nil when none are); the map is
// the caller's.
func (l *Ledger) Categories() map[string]Category {
	if l.categories == nil {
		return nil
	}
	out := make(map[string]Category, len(l.categories))
	for k, v := range l.categories {
		out[k] = v
	}
	return out
}

func (l *Ledger) checkCategory(a Allocation) error {
	if l.categories == nil {
		return nil
	}
	if _, ok := l.categories[strings.TrimSpace(a.Category)]; !ok {
		return invalidf("category", "%q is not one of the site's categories", a.Category)
	}
	return nil
}

// CreateAllocation is the Store's, refusing an unknown category when
// categories are enforced.
func (l *Ledger) CreateAllocation(ctx context.Context, a Allocation) (Allocation, error) {
	if err := l.checkCategory(a); err != nil {
		return Allocation{}, err
	}
	return l.store("CreateAllocation").CreateAllocation(ctx, a)
}

// UpdateAllocation is the Store's, refusing an unknown category when
// categories are enforced.
func (l *Ledger) UpdateAllocation(ctx context.Context, a Allocation) (Allocation, error) {
	if err := l.checkCategory(a); err != nil {
		return Allocation{}, err
	}
	return l.store("UpdateAllocation").UpdateAllocation(ctx, a)
}

// Credit is the Store's, refusing a credit past the category's limit when
// categories are enforced.
func (l *Ledger) Credit(ctx context.Context, id AllocationID, amount int64, comment string, now time.Time) (Activity, error) {
	store := l.store("Credit")
	if l.categories != nil && amount > 0 {
		a, err := store.Allocation(ctx, id)
		if err != nil {
			return Activity{}, err
		}
		b, err := store.Balance(ctx, id)
		if err != nil {
			return Activity{}, err
		}
		c := l.categories[strings.TrimSpace(a.Category)]
		if total, err := add(b.Credits, amount); c.MaxCredit > 0 && (err != nil || total > c.MaxCredit) {
			return Activity{}, invalidf("amount", "%d SU would bring allocation %d's credit to %d, past its %s category's limit of %d",
				amount, id, b.Credits+amount, a.Category, c.MaxCredit)
		}
	}
	return store.Credit(ctx, id, amount, comment, now)
}

// ParseCategories reads "name=max,name=max" (max in SU, 0 for no limit),
// as `hpcsched alloc serve --categories` takes it.
func ParseCategories(s string) (map[string]Category, error) {
	out := map[string]Category{}
	for item := range strings.SplitSeq(s, ",") {
		name, max, ok := strings.Cut(strings.TrimSpace(item), "=")
		name = strings.TrimSpace(name)
		// ParseInt, not Sscan: Sscan reads the "1" of "1e3" or "5k" and
		// stops, so a typo became a limit of 1 or 5 SU.
		n, err := strconv.ParseInt(strings.TrimSpace(max), 10, 64)
		if !ok || name == "" || err != nil || n < 0 {
			return nil, invalidf("categories", "%q is not NAME=MAX_SU", item)
		}
		if _, dup := out[name]; dup {
			return nil, invalidf("categories", "%q is given twice", name)
		}
		out[name] = Category{MaxCredit: n}
	}
	return out, nil
}
