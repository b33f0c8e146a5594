# make test: the README's test command. go vet, then every package's tests
# with the race detector in their short form (-short: the long property
# tests and sample sweeps run a fraction of their iterations). It needs
# Go 1.24+, make and a C compiler (gcc: the race detector uses cgo); about
# 2 minutes on 2 idle cores with a warm build cache, 4 the first time
# (README "Running the tests"). The timeout is per package and far above
# the slowest one (auction, about 45 s of CPU) so a loaded machine cannot
# trip it.
#
# make test-long: the same tests at full length, without -race (the race
# detector multiplies the long tests' time about tenfold): every property
# test's full iteration count, the restore round trip at 10^5 operations,
# the auction's 100-job sample sweeps, and the README's long commands
# (HPCSCHED_LONG=1; selectnodes reads HPCSCHED_LONG_TESTS).
.PHONY: test test-long bench bench-grid bench-all fuzz

TEST_TIMEOUT ?= 30m
LONG_TIMEOUT ?= 60m

test:
	go vet ./...
	go test -race -short -count=1 -timeout $(TEST_TIMEOUT) ./...

test-long:
	go vet ./...
	HPCSCHED_LONG=1 HPCSCHED_LONG_TESTS=1 go test -count=1 -timeout $(LONG_TIMEOUT) ./...

# The headline table of the hot paths: SelectNodes against the
# bitmap floor, a schedule pass, backfill, WillRun, Allocate/Release
# allocations; about 7 s with a warm build cache (internal/benchtable).
bench:
	go run ./internal/benchtable

# The P x N scale grids: whole-queue backfill and a schedule
# pass at 1k-10k pending jobs on 1k-10k nodes, with the fitted growth
# t ~ P^a x N^b; a few minutes.
bench-grid:
	go run ./internal/benchtable -grid

# Every benchmark whose figures BENCHMARKS.md records.
bench-all:
	go test -run='^$$' -bench=. -benchmem ./...

# A short fuzzing pass over every fuzz target (FUZZTIME per target).
FUZZTIME ?= 20s
fuzz:
	@for pkg in $$(go list ./...); do \
	  for f in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; go test -run='^$$' -fuzz="^$$f\$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
