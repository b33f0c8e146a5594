# The one command that runs every test: vet, then all tests with the race
# detector. CI (.ci/run) calls exactly this.
.PHONY: test bench bench-grid bench-all fuzz

test:
	go vet ./...
	go test -race -count=1 ./...
	# the restore property test at full length (10^5 operations; under -race it runs a fifth)
	go test -count=1 -run '^TestRestoredSchedulerDecidesIdentically$$' ./queue

# The headline table of the hot paths (issue 18): SelectNodes against the
# bitmap floor, a schedule pass, backfill, WillRun, Allocate/Release
# allocations; a couple of minutes (internal/benchtable).
bench:
	go run ./internal/benchtable

# The P x N scale grids (issue 18): whole-queue backfill and a schedule
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
