package allocation_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/hpcsched/hpcsched"

// goList runs go list in the module root, skipping when go is absent.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH:", err)
	}
	cmd := exec.Command(goBin, append([]string{"list"}, args...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
	}
	require.NoError(t, err)
	return strings.Fields(string(out))
}

// The core packages import only the standard library, the module's own
// packages and the three card dependencies (DESIGN.md).
func TestCorePackagesImportOnlyTheCardDependencies(t *testing.T) {
	var pkgs []string
	for _, dir := range []string{"queue", "selectnodes", "features", "topology", "auction", "allocation", "hostlist", "slurmconf"} {
		if _, err := os.Stat(filepath.Join("..", dir)); err == nil {
			pkgs = append(pkgs, "./"+dir)
		}
	}
	allowed := []string{"github.com/bits-and-blooms/bitset", "github.com/google/btree", "github.com/stretchr/testify"}
	deps := goList(t, append([]string{"-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)...)
	require.NotEmpty(t, deps)
	for _, dep := range deps {
		ok := dep == module || strings.HasPrefix(dep, module+"/")
		for _, a := range allowed {
			ok = ok || dep == a || strings.HasPrefix(dep, a+"/")
		}
		require.True(t, ok, "a core package (%v) depends on %s", pkgs, dep)
	}
}

// pgx is imported by allocation/pgstore alone.
func TestOnlyPgstoreImportsPgx(t *testing.T) {
	lines := goList(t, "-f", "{{.ImportPath}}:{{join .Imports \",\"}}", "./...")
	importers := []string{}
	for _, line := range lines {
		pkg, imports, _ := strings.Cut(line, ":")
		if strings.Contains(imports, "github.com/jackc/") {
			importers = append(importers, pkg)
		}
	}
	require.Equal(t, []string{module + "/allocation/pgstore"}, importers)
}
