package docs

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// root is the module's root folder.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	return dir
}

func goTool(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	return g
}

// fenced returns the bodies of the ```lang blocks of a Markdown text.
func fenced(text, lang string) []string {
	var out []string
	var cur *strings.Builder
	for _, line := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return out
}

// The package map in DESIGN.md lists exactly the packages that exist
// (internal ones aside; examples/... stands for the examples).
func TestDesignListsEveryPackage(t *testing.T) {
	dir := root(t)
	design, err := os.ReadFile(filepath.Join(dir, "DESIGN.md"))
	require.NoError(t, err)
	section := string(design)
	i := strings.Index(section, "## Package map")
	require.GreaterOrEqual(t, i, 0, "DESIGN.md has a '## Package map' section")
	blocks := fenced(section[i:], "")
	require.NotEmpty(t, blocks)
	var listed []string
	for _, line := range strings.Split(blocks[0], "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			listed = append(listed, f[0])
		}
	}
	cmd := exec.Command(goTool(t), "list", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	var real []string
	for _, p := range strings.Fields(string(out)) {
		p = strings.TrimPrefix(strings.TrimPrefix(p, "github.com/hpcsched/hpcsched"), "/")
		switch {
		case p == "" || strings.HasPrefix(p, "internal"):
		case strings.HasPrefix(p, "examples/"):
			p = "examples/..."
			fallthrough
		default:
			if !slices.Contains(real, p) {
				real = append(real, p)
			}
		}
	}
	slices.Sort(listed)
	slices.Sort(real)
	require.Equal(t, real, listed, "DESIGN.md's package map against go list ./...")
}

// Every Go snippet in README.md compiles. Snippets are fragments: each is
// placed inside the previous one's scope (so later snippets see earlier
// names and may shadow them), with the module's packages and the usual
// standard ones imported, and a few common names (now, ctx) declared.
func TestReadmeGoSnippetsCompile(t *testing.T) {
	dir := root(t)
	snippets := readmeBlocks(t, dir, "go")
	require.NotEmpty(t, snippets)
	var body strings.Builder
	for k, s := range snippets {
		fmt.Fprintf(&body, "\t{ // snippet %d\n%s", k+1, s)
	}
	body.WriteString(strings.Repeat("\t}\n", len(snippets)))
	src := "package main\n\n" + snippetImports(t, dir, false) +
		"\nfunc main() {\n\tctx := context.Background()\n\tnow := time.Now()\n\t_, _ = ctx, now\n" + body.String() + "}\n"
	vetSource(t, dir, "main.go", src, "README snippets")
}

// README blocks marked "```go test" are whole test functions (for
// placementtest); they compile as a _test.go file of their own.
func TestReadmeTestSnippetsCompile(t *testing.T) {
	dir := root(t)
	blocks := readmeBlocks(t, dir, "go test")
	if len(blocks) == 0 {
		t.Skip("no test snippets in the README")
	}
	src := "package snippets_test\n\n" + snippetImports(t, dir, true) + "\n" + strings.Join(blocks, "\n")
	vetSource(t, dir, "readme_test.go", src, "README test snippets")
}

func readmeBlocks(t *testing.T, dir, lang string) []string {
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	return fenced(string(readme), lang)
}

// vetSource writes src as file in a fresh folder inside the module and
// runs go vet on it (which type-checks it, tests included).
func vetSource(t *testing.T, dir, file, src, what string) {
	tmp, err := os.MkdirTemp(dir, ".readme-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, file), []byte(src), 0o644))
	cmd := exec.Command(goTool(t), "vet", "./"+filepath.Base(tmp))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s do not compile:\n%s\nfile:\n%s", what, out, numbered(src))
	}
}

// snippetImports imports every non-internal library package of the module
// and the common standard ones (and testing, for tests), each referenced
// once so none is unused.
func snippetImports(t *testing.T, dir string, testing bool) string {
	cmd := exec.Command(goTool(t), "list", "-f", "{{.ImportPath}} {{.Name}} {{.Dir}}", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	var imports, uses []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if f[1] == "main" || strings.Contains(f[0], "/internal") {
			continue
		}
		imports = append(imports, f[0])
		uses = append(uses, reference(f[1], firstExported(t, f[2])))
	}
	std := map[string]string{"context": "Background", "errors": "New", "fmt": "Sprint", "log": "Println",
		"os": "Exit", "strings": "Cut", "time": "Now", "io": "EOF", "net/http": "StatusOK"}
	if testing {
		std["testing"] = "Short"
	}
	for _, path := range slices.Sorted(maps.Keys(std)) {
		imports = append(imports, path)
		uses = append(uses, reference(path[strings.LastIndex(path, "/")+1:], std[path]))
	}
	var b strings.Builder
	b.WriteString("import (\n")
	for _, imp := range imports {
		fmt.Fprintf(&b, "\t%q\n", imp)
	}
	b.WriteString(")\n\n")
	for _, u := range uses {
		b.WriteString(u + "\n")
	}
	return b.String()
}

// reference is a declaration that uses pkg.name: a type as a type, anything
// else as a value (firstExported marks types with a leading '*').
func reference(pkg, name string) string {
	if typ, ok := strings.CutPrefix(name, "*"); ok {
		return "var _ *" + pkg + "." + typ
	}
	return "var _ = " + pkg + "." + name
}

// firstExported names an exported function, type ("*Name"), variable or
// constant of the package in dir, read with go/parser.
func firstExported(t *testing.T, dir string) string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	slices.Sort(files)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					return d.Name.Name
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() {
							return "*" + sp.Name.Name
						}
					case *ast.ValueSpec:
						if sp.Names[0].IsExported() {
							return sp.Names[0].Name
						}
					}
				}
			}
		}
	}
	t.Fatalf("package in %s exports nothing", dir)
	return ""
}

func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%4d %s\n", i+1, l)
	}
	return b.String()
}

// docCommands collects the commands shown in doc.go comments: indented
// lines that start with "hpcsched " or "go run ./".
func docCommands(t *testing.T, dir string) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != dir {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "doc.go" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			cmd, ok := strings.CutPrefix(line, "//\t")
			if ok && (strings.HasPrefix(cmd, "hpcsched ") || strings.HasPrefix(cmd, "go run ./")) {
				rel, _ := filepath.Rel(dir, path)
				out[rel] = append(out[rel], cmd)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// Every command a doc.go or the README shows runs as written, from the
// repository root, and exits 0 (or 1 where the text after '#' says "exit
// 1"). Commands that read ../shared skip when it is absent; commands marked
// "(long)" run only with HPCSCHED_LONG=1.
func TestDocCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the commands")
	}
	dir := root(t)
	bin := filepath.Join(t.TempDir(), "hpcsched")
	build := exec.Command(goTool(t), "build", "-o", bin, "./cmd/hpcsched")
	build.Dir = dir
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmds := docCommands(t, dir)
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	for _, block := range fenced(string(readme), "sh") {
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "go run ./cmd/hpcsched ") || strings.HasPrefix(line, "hpcsched ") {
				cmds["README.md"] = append(cmds["README.md"], line)
			}
		}
	}
	seen := map[string]bool{} // the README and a doc.go may show the same command
	// what the commands write under ${TMPDIR:-/tmp} goes to a directory of
	// this run's own, shared by them (one reads what an earlier wrote), so
	// a second run finds no file of the first (--jobs refuses to overwrite
	// one) and nothing is left behind
	tmp := t.TempDir()
	for _, file := range slices.Sorted(maps.Keys(cmds)) {
		for _, line := range cmds[file] {
			key, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(line, "go run ./cmd/"), "hpcsched "), "#")
			key = strings.TrimPrefix(strings.TrimSpace(key), "hpcsched ")
			if seen[key] {
				continue
			}
			seen[key] = true
			t.Run(file+": "+line, func(t *testing.T) { runDocCommand(t, dir, bin, tmp, line) })
		}
	}
}

func runDocCommand(t *testing.T, dir, bin, tmp, line string) {
	text, comment, _ := strings.Cut(line, "#")
	if strings.Contains(text, "../shared") {
		if _, err := os.Stat(filepath.Join(dir, "..", "shared", "data")); err != nil {
			t.Skip("../shared is absent")
		}
	}
	if strings.Contains(comment, "(long)") && os.Getenv("HPCSCHED_LONG") == "" {
		t.Skip("a long command: set HPCSCHED_LONG=1 to run it")
	}
	wantExit := 0
	if strings.Contains(comment, "exit 1") {
		wantExit = 1
	}
	script := strings.TrimSpace(text)
	for _, prefix := range []string{"hpcsched ", "go run ./cmd/hpcsched "} {
		if rest, ok := strings.CutPrefix(script, prefix); ok {
			script = fmt.Sprintf("%q %s", bin, rest) // the same program, built once
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	before := topEntries(t, dir)
	out, err := cmd.CombinedOutput()
	for _, name := range topEntries(t, dir) {
		if !slices.Contains(before, name) {
			t.Errorf("%s left %s in the repository", line, name)
		}
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if code != wantExit {
		t.Fatalf("%s: exit %d, want %d\n%s", line, code, wantExit, out)
	}
}

// topEntries lists the repository's top-level entries, but for hidden
// ones (other tests' scratch directories).
func topEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}
