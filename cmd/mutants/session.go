package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// tree is what every row of one invocation is measured on: a copy of the
// tracked files, made once at the start.
type tree struct {
	Dir    string // the copy
	Commit string // HEAD, abbreviated
	Dirty  bool   // the tree under test differs from HEAD (results/ and the patches aside)
	Hash   string // sha256 of the tree under test
}

// label is the commit as the report writes it.
func (t tree) label() string {
	if t.Dirty {
		return t.Commit + "-dirty"
	}
	return t.Commit
}

// session is one invocation: its settings, tree and journal, and how one
// mutant is measured (prev: its journal row at this tree, or nil).
type session struct {
	cfg     config
	tree    tree
	journal string
	measure func(ctx context.Context, m *Mutant, prev *Result) *Result
}

// run measures the mutants; it returns 1 when a row is an error or a
// landed check did not find its mutant (control failures included).
func run(ctx context.Context, cfg config) (int, error) {
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return 0, fmt.Errorf("not in a git checkout: %v", err)
	}
	ms, err := loadChecked(root, cfg)
	if err != nil {
		return 0, err
	}
	base, err := os.MkdirTemp("", "mutants-")
	if err != nil {
		return 0, err
	}
	if cfg.keep {
		fmt.Fprintf(os.Stderr, "mutants: copies in %s\n", base)
	} else {
		defer os.RemoveAll(base)
	}
	t, err := snapshot(root, filepath.Join(base, "tree"))
	if err != nil {
		return 0, fmt.Errorf("copying the tree: %w", err)
	}
	outDir := under(root, cfg.out)
	s := &session{cfg: cfg, tree: t, journal: cfg.journal}
	if s.journal == "" {
		s.journal = filepath.Join(outDir, cfg.reportName()+".journal.jsonl")
	}
	s.journal = under(root, s.journal)
	if cfg.testsOnly {
		s.measure = func(ctx context.Context, m *Mutant, prev *Result) *Result {
			return testsOnly(ctx, cfg, base, t, m, prev)
		}
	} else {
		control := filepath.Join(base, "control-simrun")
		var once sync.Once
		var cerr error
		s.measure = func(ctx context.Context, m *Mutant, _ *Result) *Result {
			once.Do(func() { // built when a first mutant needs it: a finished journal needs none
				if cerr = buildSimrun(ctx, t.Dir, control); cerr == nil {
					fmt.Fprintf(os.Stderr, "mutants: control built at %s\n", t.label())
				}
			})
			if cerr != nil {
				return &Result{Mutant: m, Cap: cfg.seeds, Fired: []string{}, Error: "the unpatched tree (the control) does not build: " + cerr.Error()}
			}
			if cfg.defaultCampaign {
				return measureDefault(ctx, cfg, base, t, control, m)
			}
			return measure(ctx, cfg, base, t, control, m)
		}
	}
	rep, err := s.runAll(ctx, ms)
	if err != nil {
		return 0, err
	}
	if err := writeReport(root, outDir, cfg.reportName(), rep); err != nil {
		return 0, err
	}
	if cfg.defaultCampaign { // a measurement: a mutant the campaign misses is a figure, not a failure
		for _, r := range rep.Results {
			if r.Error != "" {
				return 1, nil
			}
		}
		return 0, nil
	}
	return exitCode(rep), nil
}

// loadChecked reads the mutants and refuses an unknown -only name, an
// unknown check id or a patch that does not apply to the tree.
func loadChecked(root string, cfg config) ([]*Mutant, error) {
	ms, err := LoadMutants(under(root, cfg.dir))
	if err != nil {
		return nil, err
	}
	for n := range cfg.only {
		if !slices.ContainsFunc(ms, func(m *Mutant) bool { return m.Name == n }) {
			return nil, fmt.Errorf("-only: no mutant %q in %s", n, cfg.dir)
		}
	}
	for _, m := range ms {
		if known, _ := CheckKnown(m.Check); !known {
			return nil, fmt.Errorf("%s: check %q is not a known check id", m.File, m.Check)
		}
		if err := applyCheck(root, m.File); err != nil {
			return nil, err
		}
		m.File = moduleRelative(m.File)
	}
	return ms, nil
}

// runAll resumes from the journal, measures the selected mutants that have
// no finished row there (cfg.parallel at once, each row appended to the
// journal as it finishes) and returns the report of the journal's rows.
func (s *session) runAll(ctx context.Context, ms []*Mutant) (*Report, error) {
	rows, err := s.resume()
	if err != nil {
		return nil, err
	}
	todo := s.todo(ms, rows)
	if kept := len(rows); kept > 0 {
		fmt.Fprintf(os.Stderr, "mutants: %d rows kept from %s; %d to measure\n", kept, s.journal, len(todo))
	}
	j, err := campaign.OpenJournal(s.journal)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var werr error
	next := make(chan *Mutant)
	var wg sync.WaitGroup
	for range max(s.cfg.parallel, 1) {
		wg.Go(func() {
			for m := range next {
				if ctx.Err() != nil {
					continue // interrupted: keep what finished
				}
				mu.Lock()
				prev := rows[m.Name]
				mu.Unlock()
				r := s.measure(ctx, m, prev)
				if ctx.Err() != nil {
					continue // a row cut off is not journalled
				}
				s.stamp(m, r)
				err := j.Append(r)
				mu.Lock()
				rows[m.Name] = r
				werr = cmp(werr, err)
				mu.Unlock()
			}
		})
	}
	for _, m := range todo {
		next <- m
	}
	close(next)
	wg.Wait()
	if err := j.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return nil, werr
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted; rerun the same command to resume from %s", s.journal)
	}
	return s.report(ms, rows), nil
}

// cmp is the first non-nil error.
func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// ours reports whether a journal row was measured on this tree with these
// settings.
func (s *session) ours(r *Result) bool {
	return r.Commit == s.tree.Commit && r.Dirty == s.tree.Dirty && r.Tree == s.tree.Hash && r.Settings == s.cfg.settings()
}

// resume reads the journal's rows, the latest per mutant. A journal with a
// row of another commit, tree or settings (or any journal, with -fresh) is
// moved aside to .old and nothing is kept.
func (s *session) resume() (map[string]*Result, error) {
	rows := map[string]*Result{}
	stale := false
	err := campaign.ReadJournal(s.journal, func(_ int, b []byte) error {
		var r Result
		if err := json.Unmarshal(b, &r); err != nil || r.Mutant == nil {
			stale = true
			return nil
		}
		if !s.ours(&r) {
			stale = true
		}
		rows[r.Mutant.Name] = &r
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rows) > 0 && (stale || s.cfg.fresh) {
		why := "it holds rows of another commit, tree or settings"
		if s.cfg.fresh {
			why = "-fresh"
		}
		fmt.Fprintf(os.Stderr, "mutants: %s moved to %s.old (%s)\n", s.journal, s.journal, why)
		if err := os.Rename(s.journal, s.journal+".old"); err != nil {
			return nil, err
		}
		return map[string]*Result{}, nil
	}
	return rows, nil
}

// todo lists the selected mutants to measure: all of them with
// -tests-only, else those without a finished row for their patch.
func (s *session) todo(ms []*Mutant, rows map[string]*Result) []*Mutant {
	var out []*Mutant
	for _, m := range ms {
		if s.cfg.only != nil && !s.cfg.only[m.Name] {
			continue
		}
		if p := rows[m.Name]; !s.cfg.testsOnly && p != nil && p.PatchHash == patchHash(m) && p.Error == "" {
			continue
		}
		out = append(out, m)
	}
	return out
}

// stamp records on a row what it was measured on and by which command.
func (s *session) stamp(m *Mutant, r *Result) {
	r.Mutant, r.PatchHash = m, patchHash(m)
	r.Commit, r.Dirty, r.Tree = s.tree.Commit, s.tree.Dirty, s.tree.Hash
	r.Settings = s.cfg.settings()
	if r.Command == "" || !s.cfg.testsOnly {
		r.Command = s.cfg.cmdline
	} else if !strings.Contains(r.Command, s.cfg.cmdline) {
		r.Command += "`, then `" + s.cfg.cmdline
	}
}

// report is every mutant's journal row for its current patch, in file
// order.
func (s *session) report(ms []*Mutant, rows map[string]*Result) *Report {
	rep := &Report{Commit: s.tree.label(), Tree: s.tree.Hash, Date: time.Now().UTC().Format(time.RFC3339), Seeds: s.cfg.seeds,
		Mutants: len(ms), Results: []*Result{}}
	var cmds []string
	for _, m := range ms {
		r := rows[m.Name]
		if r == nil || r.PatchHash != patchHash(m) {
			continue
		}
		r.Mutant = m
		rep.Results = append(rep.Results, r)
		if !slices.Contains(cmds, r.Command) {
			cmds = append(cmds, r.Command)
		}
	}
	rep.Command = strings.Join(cmds, "`, then `")
	return rep
}

// exitCode is 1 when a row is an error, or a landed check did not find
// its mutant.
func exitCode(rep *Report) int {
	for _, r := range rep.Results {
		if st := r.Status(); st != "found" && st != "pending" && st != "equivalent" {
			return 1
		}
	}
	return 0
}

func patchHash(m *Mutant) string {
	h := sha256.Sum256(m.Patch)
	return hex.EncodeToString(h[:])
}

// applyCheck fails, naming the file, when the patch does not apply to the
// working tree of root.
func applyCheck(root, patch string) error {
	cmd := exec.Command("git", "apply", "--check", patch)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		rel, _ := filepath.Rel(root, patch)
		return fmt.Errorf("%s: the patch no longer applies to the tree: %s", rel, strings.TrimSpace(string(out)))
	}
	return nil
}

// outsideTree are the tracked paths that are not part of the tree under
// test: what a run writes, and the patches (each row keys on its own).
var outsideTree = []string{"results/", "testdata/mutants/"}

func underTest(rel string) bool {
	return !slices.ContainsFunc(outsideTree, func(p string) bool { return strings.HasPrefix(rel, p) })
}

// snapshot copies the files git tracks in root (as they are in the working
// tree, uncommitted edits included) to dst, and hashes the tree under test.
func snapshot(root, dst string) (tree, error) {
	t := tree{Dir: dst}
	var err error
	if t.Commit, err = gitOut(root, "rev-parse", "--short=12", "HEAD"); err != nil {
		return t, err
	}
	args := []string{"status", "--porcelain", "--untracked-files=no", "--", "."}
	for _, p := range outsideTree {
		args = append(args, ":(exclude)"+strings.TrimSuffix(p, "/"))
	}
	st, err := gitOut(root, args...)
	if err != nil {
		return t, err
	}
	t.Dirty = st != ""
	list, err := gitOut(root, "ls-files", "-z")
	if err != nil {
		return t, err
	}
	h := sha256.New()
	for rel := range strings.SplitSeq(strings.TrimRight(list, "\x00"), "\x00") {
		b, mode, ok, err := readRegular(filepath.Join(root, rel))
		if err != nil {
			return t, err
		}
		if !ok {
			continue
		}
		if err := writeFile(filepath.Join(dst, rel), b, mode); err != nil {
			return t, err
		}
		if underTest(rel) {
			fmt.Fprintf(h, "%s %o %d\n", rel, mode, len(b))
			h.Write(b)
		}
	}
	t.Hash = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// readRegular reads a regular file; ok is false for a file deleted in the
// working tree or one that is not regular (a link).
func readRegular(path string) (b []byte, mode os.FileMode, ok bool, err error) {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil || !st.Mode().IsRegular() {
		return nil, 0, false, err
	}
	b, err = os.ReadFile(path)
	return b, st.Mode().Perm(), err == nil, err
}

func writeFile(path string, b []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, mode)
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, mode, ok, err := readRegular(path)
		if err != nil || !ok {
			return err
		}
		return writeFile(filepath.Join(dst, rel), b, mode)
	})
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	b, err := cmd.Output()
	return strings.TrimSpace(string(b)), err
}

// portable is a recorded command line as committed results keep it: an
// absolute path under the module's root becomes module-relative, and one
// outside it (an -out folder elsewhere on the measuring machine) becomes
// DIR, so that no path of that machine is committed; the settings that
// decide the measurement are kept as they ran.
func portable(cmd, root string) string {
	fs := strings.Fields(cmd)
	for i, f := range fs {
		flag, path, cut := strings.Cut(f, "=")
		if !cut {
			flag, path = "", f
		}
		if !filepath.IsAbs(path) {
			continue
		}
		if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			path = filepath.ToSlash(rel)
		} else {
			path = "DIR"
		}
		if cut {
			fs[i] = flag + "=" + path
		} else {
			fs[i] = path
		}
	}
	return strings.Join(fs, " ")
}

// moduleRelative is a mutant's file as the report keeps it: its path from
// the module root (testdata/mutants/NAME.diff), never the absolute path
// of the tree that measured it.
func moduleRelative(path string) string {
	p := filepath.ToSlash(path)
	if i := strings.LastIndex(p, "/testdata/mutants/"); i >= 0 && filepath.IsAbs(path) {
		return p[i+1:]
	}
	return p
}
