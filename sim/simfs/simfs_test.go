package simfs

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"
)

// dump renders the current tree, for comparing states.
func dump(t *testing.T, f *FS) string {
	t.Helper()
	var b strings.Builder
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := f.ReadDir(dir)
		if err != nil {
			t.Fatalf("ReadDir(%s): %v", dir, err)
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			if e.IsDir() {
				fmt.Fprintf(&b, "%s/\n", p)
				walk(p)
				continue
			}
			data, err := f.ReadFile(p)
			if err != nil {
				t.Fatalf("ReadFile(%s): %v", p, err)
			}
			fmt.Fprintf(&b, "%s %q\n", p, data)
		}
	}
	walk("/")
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func crashRestart(f *FS) {
	f.Crash()
	f.Restart()
}

func TestLoseModel(t *testing.T) {
	tests := []struct {
		name string
		do   func(t *testing.T, f *FS)
		want string
	}{
		{"unsynced entry is lost", func(t *testing.T, f *FS) {
			must(t, f.WriteFile("/d/a", []byte("x")))
		}, "/d/\n"},
		{"synced entry survives", func(t *testing.T, f *FS) {
			must(t, f.WriteFile("/d/a", []byte("x")))
			must(t, f.SyncDir("/d"))
		}, "/d/\n/d/a \"x\"\n"},
		{"unsynced rename reverts", func(t *testing.T, f *FS) {
			must(t, f.WriteFile("/d/a", []byte("x")))
			must(t, f.SyncDir("/d"))
			must(t, f.Rename("/d/a", "/d/b"))
		}, "/d/\n/d/a \"x\"\n"},
		{"unsynced remove reverts", func(t *testing.T, f *FS) {
			must(t, f.WriteFile("/d/a", []byte("x")))
			must(t, f.SyncDir("/d"))
			must(t, f.RemoveAll("/d/a"))
		}, "/d/\n/d/a \"x\"\n"},
		{"overwrite that never synced keeps the old content", func(t *testing.T, f *FS) {
			must(t, f.WriteFile("/d/a", []byte("old")))
			must(t, f.SyncDir("/d"))
			f.SetCrashHook(func(op, _ string) bool { return op == "fsync" })
			if err := f.WriteFile("/d/a", []byte("new")); !errors.Is(err, ErrCrashed) {
				t.Fatalf("WriteFile = %v, want ErrCrashed", err)
			}
			f.SetCrashHook(nil)
		}, "/d/\n/d/a \"old\"\n"},
		{"mkdir is durable", func(t *testing.T, f *FS) {
			must(t, f.MkdirAll("/d/e/f"))
		}, "/d/\n/d/e/\n/d/e/f/\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New(nil)
			must(t, f.MkdirAll("/d"))
			tt.do(t, f)
			crashRestart(f)
			if got := dump(t, f); got != tt.want {
				t.Errorf("after crash:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestCrashedFSRefusesEverythingUntilRestart(t *testing.T) {
	f := New(nil)
	must(t, f.MkdirAll("/d"))
	f.CrashAt(1) // the write happens, the fsync crashes
	if err := f.WriteFile("/d/a", []byte("x")); !errors.Is(err, ErrCrashed) {
		t.Fatalf("WriteFile = %v, want ErrCrashed", err)
	}
	calls := map[string]error{
		"MkdirAll":  f.MkdirAll("/e"),
		"WriteFile": f.WriteFile("/d/b", nil),
		"Rename":    f.Rename("/d/a", "/d/c"),
		"Remove":    f.Remove("/d/a"),
		"RemoveAll": f.RemoveAll("/d"),
		"SyncDir":   f.SyncDir("/d"),
	}
	_, calls["ReadDir"] = f.ReadDir("/d")
	_, calls["ReadFile"] = f.ReadFile("/d/a")
	_, calls["Stat"] = f.Stat("/d")
	for name, err := range calls {
		if !errors.Is(err, ErrCrashed) {
			t.Errorf("%s while crashed = %v, want ErrCrashed", name, err)
		}
	}
	f.SetCrashHook(nil)
	f.Restart()
	if _, err := f.Stat("/d/a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of an unsynced file after restart = %v, want not-exist", err)
	}
	must(t, f.WriteFile("/d/a", []byte("y")))
}

func TestStepsAndHookArguments(t *testing.T) {
	f := New(nil)
	var ops []string
	f.SetCrashHook(func(op, p string) bool {
		ops = append(ops, op+" "+p)
		return false
	})
	must(t, f.MkdirAll("/a/b"))
	must(t, f.WriteFile("/a/b/x", []byte("1")))
	must(t, f.Rename("/a/b/x", "/a/y"))
	must(t, f.SyncDir("/a"))
	must(t, f.RemoveAll("/a"))
	want := "mkdir /a|mkdir /a/b|write /a/b/x|fsync /a/b/x|rename /a/y|syncdir /a|remove /a/b|remove /a/y|remove /a"
	if got := strings.Join(ops, "|"); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	if f.Steps() != len(ops) {
		t.Errorf("Steps() = %d, want %d", f.Steps(), len(ops))
	}
}

func TestFailHookFailsOneStepWithoutCrashing(t *testing.T) {
	f := New(nil)
	must(t, f.MkdirAll("/d"))
	boom := errors.New("disk full")
	f.SetFailHook(func(op, _ string) error {
		if op == "fsync" {
			return boom
		}
		return nil
	})
	if err := f.WriteFile("/d/a", []byte("x")); !errors.Is(err, boom) {
		t.Fatalf("WriteFile = %v, want %v", err, boom)
	}
	if f.Crashed() {
		t.Fatal("a failed step crashed the FS")
	}
	f.SetFailHook(nil)
	must(t, f.WriteFile("/d/a", []byte("x")))
}

func TestReadFailHookFailsReadsOnly(t *testing.T) {
	f := New(nil)
	must(t, f.MkdirAll("/d"))
	must(t, f.WriteFile("/d/a", []byte("x")))
	steps := f.Steps()
	boom := errors.New("i/o error")
	var seen []string
	f.SetReadFailHook(func(op, p string) error {
		seen = append(seen, op+" "+p)
		return boom
	})
	if _, err := f.ReadDir("/d"); !errors.Is(err, boom) {
		t.Errorf("ReadDir = %v, want %v", err, boom)
	}
	if _, err := f.ReadFile("/d/a"); !errors.Is(err, boom) {
		t.Errorf("ReadFile = %v, want %v", err, boom)
	}
	if _, err := f.Stat("/d/a"); !errors.Is(err, boom) {
		t.Errorf("Stat = %v, want %v", err, boom)
	}
	must(t, f.WriteFile("/d/b", []byte("y"))) // a step: not a read, not failed
	if want := []string{"readdir /d", "read /d/a", "stat /d/a"}; !slices.Equal(seen, want) {
		t.Errorf("the hook saw %q, want %q", seen, want)
	}
	if f.Steps() == steps || f.Crashed() {
		t.Errorf("steps %d -> %d, crashed %v: the write did not run as a step", steps, f.Steps(), f.Crashed())
	}
	f.SetReadFailHook(nil)
	if b, err := f.ReadFile("/d/a"); err != nil || string(b) != "x" {
		t.Errorf("ReadFile after the hook = %q, %v; want \"x\"", b, err)
	}
}

// history is a fixed sequence of operations that leaves much unsynced.
func history(t *testing.T, f *FS) {
	must(t, f.MkdirAll("/d/s"))
	for i := range 6 {
		must(t, f.WriteFile(fmt.Sprintf("/d/s/f%d", i), []byte(strings.Repeat("ab", i+1))))
	}
	must(t, f.SyncDir("/d/s"))
	for i := range 3 {
		must(t, f.Rename(fmt.Sprintf("/d/s/f%d", i), fmt.Sprintf("/d/g%d", i)))
		must(t, f.WriteFile(fmt.Sprintf("/d/s/f%d", i+3), []byte("rewritten")))
	}
	f.SetCrashHook(func(op, _ string) bool { return op == "fsync" })
	_ = f.WriteFile("/d/s/f5", []byte("torn-candidate"))
	f.SetCrashHook(nil)
}

func TestRandomModelIsDeterministicPerSeed(t *testing.T) {
	run := func(seed uint64) string {
		f := New(rand.New(rand.NewPCG(seed, 1)))
		history(t, f)
		f.Restart()
		return dump(t, f)
	}
	outcomes := map[string]bool{}
	for seed := range uint64(40) {
		a, b := run(seed), run(seed)
		if a != b {
			t.Fatalf("seed %d resolved two ways:\n%s\n---\n%s", seed, a, b)
		}
		outcomes[a] = true
	}
	if len(outcomes) < 10 {
		t.Errorf("40 seeds gave only %d distinct post-crash states; the model explores too little", len(outcomes))
	}
}

func TestRandomModelNeverLosesDurableState(t *testing.T) {
	for seed := range uint64(50) {
		f := New(rand.New(rand.NewPCG(seed, 2)))
		must(t, f.MkdirAll("/d"))
		must(t, f.WriteFile("/d/keep", []byte("durable")))
		must(t, f.SyncDir("/d"))
		history(t, f)
		f.Restart()
		got, err := f.ReadFile("/d/keep")
		if err != nil || string(got) != "durable" {
			t.Fatalf("seed %d: durable file = %q, %v", seed, got, err)
		}
	}
}

func TestFlipCorruptsDurably(t *testing.T) {
	f := New(nil)
	must(t, f.MkdirAll("/d"))
	must(t, f.WriteFile("/d/a", []byte{0, 1, 2}))
	must(t, f.SyncDir("/d"))
	must(t, f.Flip("/d/a", 1, 0xff))
	crashRestart(f)
	got, _ := f.ReadFile("/d/a")
	if string(got) != string([]byte{0, 0xfe, 2}) {
		t.Errorf("after flip and crash: %v", got)
	}
	if err := f.Flip("/d/a", 3, 1); err == nil {
		t.Error("Flip past the end succeeded")
	}
}

func TestTruncateCutsDurably(t *testing.T) {
	f := New(nil)
	must(t, f.MkdirAll("/d"))
	must(t, f.WriteFile("/d/a", []byte{0, 1, 2}))
	must(t, f.SyncDir("/d"))
	must(t, f.Truncate("/d/a", 1))
	crashRestart(f)
	got, _ := f.ReadFile("/d/a")
	if string(got) != string([]byte{0}) {
		t.Errorf("after truncate and crash: %v", got)
	}
	if err := f.Truncate("/d/a", 2); err == nil {
		t.Error("Truncate past the end succeeded")
	}
}
