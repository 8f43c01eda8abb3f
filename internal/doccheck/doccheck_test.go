package doccheck

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allowed are the absolute machine paths that may stay in tracked files,
// each with its reason. A new entry needs one as good: a path of the
// machine that wrote a file means nothing on another. A pattern's leading
// slash is escaped (\/), so that this file carries no path for
// TestNoMachinePaths to find.
var allowed = []Allow{
	// Documented examples: a scratch path in a command a reader runs.
	{File: `README\.md`, Match: `\/tmp/h1\.html`,
		Reason: "documented example: the page simrun replay --timeline writes, in the README's command"},
	{File: `bench/README\.md`, Match: `\/tmp/t(/tails\.csv)?`,
		Reason: "documented example: the scratch folder of the tails commands (bench/side.sh -tails, tailattr)"},
	// Records of past runs: each holds the command line or the folders of
	// a run as it ran, and is read back (summary figures, resume, merge,
	// cmd/resultsdoc); rewriting one would falsify the record, and
	// regenerating it means running the campaign again (hours).
	{File: `results/findings/upstream-jdk\.txt`, Match: `\/tmp/seatunnel-checkout,?`,
		Reason: "record of the JDK peer run: its header names where the upstream sources read were placed"},
	{File: `results/long/timer-lead/run\.sh`, Match: `\/tmp/(simrun-lead|lead-out(/.*)?)`,
		Reason: "script of a past campaign, kept as it ran (results/long/README.md)"},
}

// repoRoot is the repository's root, or the test is skipped outside a
// git checkout.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// tracked lists the repository's tracked files (slash-separated) that
// are there, with their contents.
func tracked(t *testing.T, root string) map[string][]byte {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := map[string][]byte{}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			continue // deleted in the working tree, or a submodule
		}
		files[f] = b
	}
	if len(files) == 0 {
		t.Fatal("git ls-files lists no file")
	}
	return files
}

func isMarkdown(f string) bool {
	ext := strings.ToLower(filepath.Ext(f))
	return ext == ".md" || ext == ".markdown"
}

// TestMarkdownLinksResolve: every relative link of every tracked
// Markdown file names a file or folder of the checkout.
func TestMarkdownLinksResolve(t *testing.T) {
	root := repoRoot(t)
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	files := tracked(t, root)
	n := 0
	for _, f := range slices.Sorted(maps.Keys(files)) {
		if !isMarkdown(f) {
			continue
		}
		n += len(Links(f, files[f]))
		for _, p := range BrokenLinks(f, files[f], exists) {
			t.Error(p)
		}
	}
	t.Logf("%d relative links checked", n)
}

// TestNoMachinePaths: no tracked text file (go.sum and binary files
// aside) carries an absolute path of the machine that wrote it, but the
// allowed ones.
func TestNoMachinePaths(t *testing.T) {
	root := repoRoot(t)
	files := tracked(t, root)
	for _, f := range slices.Sorted(maps.Keys(files)) {
		if f == "go.sum" || Binary(files[f]) {
			continue
		}
		for _, p := range MachinePaths(f, files[f], allowed) {
			t.Error(p)
		}
	}
}

// TestAllowedHaveReasons: every allowed path says why, and is still
// needed (an entry that covers nothing is dropped).
func TestAllowedHaveReasons(t *testing.T) {
	root := repoRoot(t)
	used := make([]bool, len(allowed))
	for f, b := range tracked(t, root) {
		for _, p := range MachinePaths(f, b, nil) {
			for i, a := range allowed {
				used[i] = used[i] || allowedPath([]Allow{a}, f, strings.TrimPrefix(p.Msg, "absolute path of a machine: "))
			}
		}
	}
	for i, a := range allowed {
		if strings.TrimSpace(a.Reason) == "" {
			t.Errorf("allowed[%d] (%s in %s) has no reason", i, a.Match, a.File)
		}
		if !used[i] {
			t.Errorf("allowed[%d] (%s in %s) covers no path of a tracked file: drop it", i, a.Match, a.File)
		}
	}
}

// abs builds an absolute path from its parts, so that this file carries
// none for TestNoMachinePaths to find.
func abs(parts ...string) string { return "/" + strings.Join(parts, "/") }

// TestBrokenLinksFindsPlanted: a planted broken link is found with its
// line, as are links that leave the repository or are written from the
// root; links that resolve, URLs, anchors and links in code are not.
func TestBrokenLinksFindsPlanted(t *testing.T) {
	have := map[string]bool{"docs": true, "docs/a.md": true, "docs/b c.md": true, "README.md": true, "img/x.png": true}
	exists := func(p string) bool { return have[p] }
	src := strings.Join([]string{
		"# Title", // 1
		"[a](a.md) and [a again](./a.md#section)",                          // 2: resolves
		"[gone](missing.md) and ![img](../img/x.png)",                      // 3: missing.md broken
		"[readme](../README.md), [root](/README.md)",                       // 4: resolve
		"[web](https://example.com/x.md) [mail](mailto:a@b) [top](#title)", // 5: not relative
		"[b](b%20c.md) [dir](.) [wrapped",                                  // 6
		"text](nowhere/file.md)",                                           // 7: broken, text over two lines
		"```",                                                              // 8
		"[in code](absent.md)",                                             // 9: code block
		"```",                                                              // 10
		"`[in span](absent.md)` [out](../../up.md)",                        // 11: span skipped; leaves the repo
		"[ref]: gone/ref.md",                                               // 12: broken reference definition
		`<a href="missing.html">x</a> <img src="../img/x.png">`,            // 13: href broken
		"[rootgone](/nope.md \"title\")",                                   // 14: broken from the root
	}, "\n")
	var got []string
	for _, p := range BrokenLinks("docs/index.md", []byte(src), exists) {
		got = append(got, p.String())
	}
	slices.Sort(got)
	want := []string{
		"docs/index.md:11: link ../../up.md leaves the repository",
		"docs/index.md:12: broken link gone/ref.md: no docs/gone/ref.md",
		"docs/index.md:13: broken link missing.html: no docs/missing.html",
		"docs/index.md:14: broken link /nope.md: no nope.md",
		"docs/index.md:3: broken link missing.md: no docs/missing.md",
		"docs/index.md:7: broken link nowhere/file.md: no docs/nowhere/file.md",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("BrokenLinks found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestMachinePathsFindsPlanted: planted absolute paths of a machine are
// found with their lines; paths inside URLs, relative paths, file:///
// roots and allowed paths are not.
func TestMachinePathsFindsPlanted(t *testing.T) {
	src := strings.Join([]string{
		"// see " + abs("work", "main", "core", "x.go") + ":12",                // 1
		"out=" + abs("tmp", "run-1") + " and `" + abs("home", "me", "f") + "`", // 2: two
		"https://example.com" + abs("home", "x") + " a" + abs("tmp", "b"),      // 3: none
		"fs.defaultFS: file://" + abs("tmp", ""),                               // 4: none
		"example: --timeline " + abs("tmp", "h1.html"),                         // 5: allowed
		"(" + abs("root", "go", "bin") + ")",                                   // 6
		"AB=${AB:-" + abs("work", "ab") + "}",                                  // 7: a shell default
	}, "\n")
	allow := []Allow{{File: `docs/.*\.md`, Match: `\/tmp/h1\.html`, Reason: "example"}}
	var got []string
	for _, p := range MachinePaths("docs/x.md", []byte(src), allow) {
		got = append(got, p.String())
	}
	want := []string{
		"docs/x.md:1: absolute path of a machine: " + abs("work", "main", "core", "x.go:12"),
		"docs/x.md:2: absolute path of a machine: " + abs("tmp", "run-1"),
		"docs/x.md:2: absolute path of a machine: " + abs("home", "me", "f"),
		"docs/x.md:6: absolute path of a machine: " + abs("root", "go", "bin"),
		"docs/x.md:7: absolute path of a machine: " + abs("work", "ab"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("MachinePaths found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// the allowed path is found in a file the entry does not cover
	if got := MachinePaths("other.txt", []byte(src), allow); len(got) != 6 {
		t.Errorf("in another file %d paths found, want 6: %v", len(got), got)
	}
	if !Binary([]byte("a\x00b")) || Binary(bytes.Repeat([]byte("a"), 9000)) {
		t.Error("Binary: a NUL byte makes a file binary, text does not")
	}
}
