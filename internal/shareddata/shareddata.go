// Package shareddata finds the real workloads and Slurm configurations that
// live beside the repository in ../shared/data, for tests and benchmarks.
// They are never copied into the repository; a test that needs them skips
// with a message when they are absent.
package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// EnvVar overrides where the data folder is.
const EnvVar = "HPCSCHED_SHARED_DATA"

// Dir returns the data folder (…/shared/data), or "" when it cannot be
// found. It looks at $HPCSCHED_SHARED_DATA, then walks up from the working
// directory to the module root and looks beside it.
func Dir() string {
	if d := os.Getenv(EnvVar); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Require returns the sub-folder sub of the data folder, or skips tb with a
// message saying where the data was looked for.
func Require(tb testing.TB, sub string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared data not found: put the shared folder beside the repository or set %s", EnvVar)
	}
	p := filepath.Join(d, sub)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data %s not found: %v", p, err)
	}
	return p
}

// SiteConfigs lays the shared Slurm configurations out as each site had
// them: "unsw_abacus.headnode.conf" becomes "unsw_abacus/headnode.conf", so
// that "include /etc/slurm/headnode.conf" resolves as it did on the
// cluster. It skips tb when the data is absent.
func SiteConfigs(tb testing.TB) fstest.MapFS {
	tb.Helper()
	dir := Require(tb, "slurm_configs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, e := range entries {
		site, file, ok := strings.Cut(e.Name(), ".")
		if !ok || !strings.HasSuffix(file, ".conf") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		fsys[site+"/"+file] = &fstest.MapFile{Data: data}
	}
	return fsys
}

// siteConfs are the sites' main slurm.conf paths in SiteConfigs.
var siteConfs = []string{
	"bnl_sdcc_nsls2/slurm.conf", "imperial_biomedia/slurm.conf", "nstda_tara_test/slurm.conf",
	"nvidia_ngc_circe_superpod/slurm.conf", "slac_sdf_prod/slurm.conf", "ubccr_medium_ubhpc/slurm.conf",
	"ubccr_micro/slurm.conf", "unsw_abacus/slurm.conf",
}

// SlurmConfs returns the paths of the sites' main slurm.conf files in the
// file system SiteConfigs returns.
func SlurmConfs() []string { return append([]string(nil), siteConfs...) }
