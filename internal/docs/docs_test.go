package docs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	snippets := fenced(string(readme), "go")
	require.NotEmpty(t, snippets)
	var body strings.Builder
	for k, s := range snippets {
		fmt.Fprintf(&body, "\t{ // snippet %d\n%s", k+1, s)
	}
	body.WriteString(strings.Repeat("\t}\n", len(snippets)))
	src := snippetProgram(t, dir, body.String())
	tmp, err := os.MkdirTemp(dir, ".readme-snippets-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "main.go"), []byte(src), 0o644))
	cmd := exec.Command(goTool(t), "vet", "./"+filepath.Base(tmp))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README snippets do not compile:\n%s\nprogram:\n%s", out, numbered(src))
	}
}

// README blocks marked "```go test" are whole test functions (for
// placementtest); they compile as a _test.go file of their own.
func TestReadmeTestSnippetsCompile(t *testing.T) {
	dir := root(t)
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	blocks := fenced(string(readme), "go test")
	if len(blocks) == 0 {
		t.Skip("no test snippets in the README")
	}
	prog := snippetProgram(t, dir, "")
	prog = strings.Replace(prog, "package main\n", "package snippets_test\n", 1)
	prog = strings.Replace(prog, "import (\n", "import (\n\t\"testing\"\n", 1)
	prog = prog[:strings.Index(prog, "\nfunc main()")] + "\nvar _ = testing.Short\n\n" + strings.Join(blocks, "\n")
	tmp, err := os.MkdirTemp(dir, ".readme-tests-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "readme_test.go"), []byte(prog), 0o644))
	cmd := exec.Command(goTool(t), "vet", "./"+filepath.Base(tmp))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README test snippets do not compile:\n%s\nfile:\n%s", out, numbered(prog))
	}
}

// snippetProgram wraps body in a main package that imports every
// non-internal package of the module and the common standard ones, each
// referenced once so none is unused.
func snippetProgram(t *testing.T, dir, body string) string {
	cmd := exec.Command(goTool(t), "list", "-f", "{{.ImportPath}} {{.Name}}", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	var imports, uses []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, name, _ := strings.Cut(line, " ")
		if name == "main" || strings.Contains(path, "/internal") {
			continue
		}
		imports = append(imports, fmt.Sprintf("%q", path))
		uses = append(uses, name)
	}
	for _, std := range []string{"context", "errors", "fmt", "log", "os", "strings", "time", "io", "net/http"} {
		imports = append(imports, fmt.Sprintf("%q", std))
		uses = append(uses, std[strings.LastIndex(std, "/")+1:])
	}
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n")
	for _, imp := range imports {
		b.WriteString("\t" + imp + "\n")
	}
	b.WriteString(")\n\n")
	for _, u := range uses {
		fmt.Fprintf(&b, "var _ = %s.%s\n", u, anyExported(t, dir, u))
	}
	b.WriteString("\nfunc main() {\n\tctx := context.Background()\n\tnow := time.Now()\n\t_, _ = ctx, now\n")
	b.WriteString(body)
	b.WriteString("}\n")
	return b.String()
}

// anyExported names one exported identifier of a package, to reference it.
func anyExported(t *testing.T, dir, pkg string) string {
	std := map[string]string{"context": "Background", "errors": "New", "fmt": "Sprint", "log": "Println",
		"os": "Exit", "strings": "Cut", "time": "Now", "io": "EOF", "http": "StatusOK"}
	if name, ok := std[pkg]; ok {
		return name
	}
	cmd := exec.Command(goTool(t), "doc", "-short", "./"+pkgDir(t, dir, pkg))
	cmd.Dir = dir
	out, _ := cmd.Output()
	re := regexp.MustCompile(`^(?:func|type|var|const) ([A-Z]\w*)`)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := re.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			return m[1]
		}
	}
	t.Fatalf("package %s exports nothing go doc shows", pkg)
	return ""
}

func pkgDir(t *testing.T, dir, name string) string {
	cmd := exec.Command(goTool(t), "list", "-f", "{{.Name}} {{.Dir}}", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	for _, line := range strings.Split(string(out), "\n") {
		n, d, _ := strings.Cut(line, " ")
		if n == name {
			rel, _ := filepath.Rel(dir, d)
			return rel
		}
	}
	t.Fatalf("no package named %s", name)
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
	for _, file := range slices.Sorted(maps.Keys(cmds)) {
		for _, line := range cmds[file] {
			key, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(line, "go run ./cmd/"), "hpcsched "), "#")
			key = strings.TrimPrefix(strings.TrimSpace(key), "hpcsched ")
			if seen[key] {
				continue
			}
			seen[key] = true
			t.Run(file+": "+line, func(t *testing.T) { runDocCommand(t, dir, bin, line) })
		}
	}
}

func runDocCommand(t *testing.T, dir, bin, line string) {
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
	out, err := cmd.CombinedOutput()
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
