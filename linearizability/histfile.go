package linearizability

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/model"
)

// History file format: a small text format for hand-written and saved
// histories (testdata/*.hist). Blank lines and lines starting with '#' are
// ignored. Header lines come first:
//
//	model: watermark            one of model.Specs() by name (required)
//	want: ok | illegal | malformed <text the refusal must contain>
//
// Then one operation per line, in the order its actor performed them:
//
//	<actor> <call> <return|?> <verb> [key=value ...] [-> key=value ...]
//
// Times are virtual ns (the file is recorded with the Virtual clock); '?'
// as the return means the outcome is unknown (the operation is cut). Keys
// before "->" are the input, after it the output. pipeline, partition and
// job default to 0; every other key is required. Verbs per model:
//
//	watermark:  begin epoch=E | revoke | resolve epoch=E seq=S last=L ok=B
//	            | commit epoch=E offset=O | quarantine epoch=E seq=S last=L
//	generation: restore gen=G | trigger gen=G id=I -> started=B
//	            | effect armed=G kind=K id=I -> failed=G|dropped=true
//	            | status -> gen=G failed=B
//	register:   complete id=I | read -> id=I
//	savepoints: commit id=I -> ok=B | delete id=I | list -> ids=1,2,3
type HistoryFile struct {
	Spec    model.Spec
	Want    string // "ok", "illegal", "malformed", or "unknown" (an unfinished check's artefact)
	WantErr string // for "malformed": text the refusal must contain
	Lines   []HistoryLine
}

// HistoryLine is one operation of a history file.
type HistoryLine struct {
	Line        int
	Actor       string
	Call, Ret   int64 // Ret is math.MaxInt64 for '?'
	Input, Outp any   // Outp is model.Unknown{} for '?'
}

// ReadHistory parses a history file.
func ReadHistory(r io.Reader) (*HistoryFile, error) {
	hf := &HistoryFile{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := hf.parseLine(line, n); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if hf.Spec.Name == "" {
		return nil, fmt.Errorf("no 'model:' header")
	}
	return hf, nil
}

func (hf *HistoryFile) parseLine(line string, n int) error {
	if k, v, ok := strings.Cut(line, ":"); ok && !strings.ContainsAny(k, " \t") {
		return hf.header(k, strings.TrimSpace(v))
	}
	if hf.Spec.Name == "" {
		return fmt.Errorf("operation before the 'model:' header")
	}
	op, err := parseOp(hf.Spec.Name, line)
	op.Line = n
	hf.Lines = append(hf.Lines, op)
	return err
}

func (hf *HistoryFile) header(k, v string) error {
	switch k {
	case "model":
		spec, ok := model.ByName(v)
		if !ok {
			return fmt.Errorf("unknown model %q", v)
		}
		hf.Spec = spec
	case "want":
		hf.Want, hf.WantErr, _ = strings.Cut(v, " ")
		if !slices.Contains([]string{"ok", "illegal", "malformed", "unknown"}, hf.Want) {
			return fmt.Errorf("want %q: not ok, illegal, malformed or unknown", hf.Want)
		}
	default:
		return fmt.Errorf("unknown header %q", k)
	}
	return nil
}

// Record feeds the file's operations to rec in file order and returns the
// first refusal.
func (hf *HistoryFile) Record(rec *Recorder) error {
	for _, l := range hf.Lines {
		var err error
		if l.Ret == math.MaxInt64 {
			var op Op
			if op, err = rec.Invoke(l.Actor, l.Call, l.Input); err == nil {
				err = rec.Cut(op)
			}
		} else {
			err = rec.Record(l.Actor, l.Call, l.Ret, l.Input, l.Outp)
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", l.Line, err)
		}
	}
	return nil
}

func parseOp(modelName, line string) (HistoryLine, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return HistoryLine{}, fmt.Errorf("want <actor> <call> <return|?> <verb> ...")
	}
	l := HistoryLine{Actor: f[0], Ret: math.MaxInt64}
	var err error
	if l.Call, err = strconv.ParseInt(f[1], 10, 64); err != nil {
		return l, fmt.Errorf("call: %w", err)
	}
	if f[2] != "?" {
		if l.Ret, err = strconv.ParseInt(f[2], 10, 64); err != nil {
			return l, fmt.Errorf("return: %w", err)
		}
	}
	in, out, err := splitArgs(f[4:])
	if err != nil {
		return l, err
	}
	out.lenient = l.Ret == math.MaxInt64
	l.Input, l.Outp, err = build(modelName, f[3], in, out)
	if l.Ret == math.MaxInt64 {
		l.Outp = model.Unknown{}
	}
	if err == nil {
		err = in.unused("input")
	}
	if err == nil {
		err = out.unused("output")
	}
	return l, err
}

// args is a set of key=value pairs; reading a key marks it used.
type args struct {
	kv      map[string]string
	used    map[string]bool
	err     error
	lenient bool // missing keys are not errors (outputs of cut operations)
}

func splitArgs(f []string) (in, out *args, err error) {
	in, out = &args{kv: map[string]string{}, used: map[string]bool{}}, &args{kv: map[string]string{}, used: map[string]bool{}}
	cur := in
	for _, s := range f {
		if s == "->" {
			cur = out
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return nil, nil, fmt.Errorf("%q is not key=value", s)
		}
		cur.kv[k] = v
	}
	return in, out, nil
}

func (a *args) has(k string) bool { _, ok := a.kv[k]; return ok }

func (a *args) raw(k string, def string, required bool) string {
	v, ok := a.kv[k]
	a.used[k] = true
	if !ok && required && !a.lenient && a.err == nil {
		a.err = fmt.Errorf("missing %s=", k)
	}
	if !ok {
		return def
	}
	return v
}

func (a *args) int(k string) int64 { return a.parseInt(k, a.raw(k, "0", true)) }
func (a *args) id(k string) int    { return int(a.parseInt(k, a.raw(k, "0", false))) }

func (a *args) parseInt(k, v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("%s=%q: not an integer", k, v)
	}
	return n
}

func (a *args) bool(k string) bool {
	v := a.raw(k, "false", true)
	b, err := strconv.ParseBool(v)
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("%s=%q: not a boolean", k, v)
	}
	return b
}

func (a *args) ints(k string) model.SavepointIDs {
	ids := model.SavepointIDs{}
	for _, s := range strings.Split(a.raw(k, "", true), ",") {
		if s != "" {
			ids = append(ids, a.parseInt(k, s))
		}
	}
	return ids
}

func (a *args) unused(what string) error {
	if a.err != nil {
		return a.err
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range a.kv {
			if !a.used[k] && !yield(k) {
				return
			}
		}
	}) {
		return fmt.Errorf("unknown %s key %q", what, k)
	}
	return nil
}

func build(modelName, verb string, in, out *args) (input, output any, err error) {
	switch modelName {
	case "watermark":
		input, output = buildWatermark(verb, in)
	case "generation":
		input, output = buildGeneration(verb, in, out)
	case "register":
		input, output = buildRegister(verb, in, out)
	case "savepoints":
		input, output = buildSavepoints(verb, in, out)
	}
	if input == nil {
		return nil, nil, fmt.Errorf("unknown %s verb %q", modelName, verb)
	}
	return input, output, nil
}

func buildWatermark(verb string, in *args) (any, any) {
	p, q := in.id("pipeline"), in.id("partition")
	switch verb {
	case "begin":
		return model.BeginEpoch{Pipeline: p, Partition: q, Epoch: in.int("epoch")}, nil
	case "revoke":
		return model.Revoke{Pipeline: p, Partition: q}, nil
	case "resolve":
		return model.Resolve{Pipeline: p, Partition: q, Epoch: in.int("epoch"), Seq: in.int("seq"),
			Last: in.int("last"), OK: in.bool("ok")}, nil
	case "commit":
		return model.CommitOffset{Pipeline: p, Partition: q, Epoch: in.int("epoch"), Offset: in.int("offset")}, nil
	case "quarantine":
		return model.Quarantine{Pipeline: p, Partition: q, Epoch: in.int("epoch"), Seq: in.int("seq"),
			Last: in.int("last")}, nil
	}
	return nil, nil
}

func buildGeneration(verb string, in, out *args) (any, any) {
	p := in.id("pipeline")
	switch verb {
	case "restore":
		return model.Restore{Pipeline: p, NewGen: in.int("gen")}, nil
	case "trigger":
		return model.Trigger{Pipeline: p, Gen: in.int("gen"), ID: in.int("id")},
			model.TriggerResult{Started: out.bool("started")}
	case "effect":
		op := model.Effect{Pipeline: p, Armed: in.int("armed"), Kind: in.raw("kind", "", true), ID: in.int("id")}
		if out.has("dropped") {
			out.bool("dropped")
			return op, model.EffectResult{}
		}
		return op, model.EffectResult{Failed: true, Gen: out.int("failed")}
	case "status":
		return model.ReadGen{Pipeline: p}, model.ReadGenResult{Gen: out.int("gen"), Failed: out.bool("failed")}
	}
	return nil, nil
}

func buildRegister(verb string, in, out *args) (any, any) {
	p := in.id("pipeline")
	switch verb {
	case "complete":
		return model.Complete{Pipeline: p, ID: in.int("id")}, nil
	case "read":
		return model.ReadLatest{Pipeline: p}, model.ReadResult{ID: out.int("id")}
	}
	return nil, nil
}

func buildSavepoints(verb string, in, out *args) (any, any) {
	j := in.id("job")
	switch verb {
	case "commit":
		return model.SavepointCommit{Job: j, ID: in.int("id")}, model.SavepointResult{OK: out.bool("ok")}
	case "delete":
		return model.SavepointDelete{Job: j, ID: in.int("id")}, nil
	case "list":
		return model.SavepointList{Job: j}, out.ints("ids")
	}
	return nil, nil
}

// WriteHistory writes ops in the history file format, so that a failing
// history can be kept in testdata and replayed. Actors come from the
// operations' Metadata as the Recorder sets it.
func WriteHistory(w io.Writer, spec model.Spec, want string, ops []porcupine.Operation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "model: %s\nwant: %s\n", spec.Name, want)
	for _, op := range ops {
		actor, _ := op.Metadata.(string)
		actor = strings.ReplaceAll(strings.TrimSuffix(actor, " (cut)"), " ", "_")
		if actor == "" {
			actor = fmt.Sprintf("c%d", op.ClientId)
		}
		ret := "?"
		if op.Return != math.MaxInt64 {
			ret = strconv.FormatInt(op.Return, 10)
		}
		fmt.Fprintf(bw, "%s %d %s %s\n", actor, op.Call, ret, formatOp(op.Input, op.Output))
	}
	return bw.Flush()
}

func formatOp(in, out any) string {
	s := formatInput(in)
	if o := formatOutput(out); o != "" {
		s += " -> " + o
	}
	return s
}

func formatInput(in any) string {
	switch o := in.(type) {
	case model.BeginEpoch:
		return fmt.Sprintf("begin pipeline=%d partition=%d epoch=%d", o.Pipeline, o.Partition, o.Epoch)
	case model.Revoke:
		return fmt.Sprintf("revoke pipeline=%d partition=%d", o.Pipeline, o.Partition)
	case model.Resolve:
		return fmt.Sprintf("resolve pipeline=%d partition=%d epoch=%d seq=%d last=%d ok=%t",
			o.Pipeline, o.Partition, o.Epoch, o.Seq, o.Last, o.OK)
	case model.CommitOffset:
		return fmt.Sprintf("commit pipeline=%d partition=%d epoch=%d offset=%d", o.Pipeline, o.Partition, o.Epoch, o.Offset)
	case model.Quarantine:
		return fmt.Sprintf("quarantine pipeline=%d partition=%d epoch=%d seq=%d last=%d",
			o.Pipeline, o.Partition, o.Epoch, o.Seq, o.Last)
	case model.Restore:
		return fmt.Sprintf("restore pipeline=%d gen=%d", o.Pipeline, o.NewGen)
	case model.Trigger:
		return fmt.Sprintf("trigger pipeline=%d gen=%d id=%d", o.Pipeline, o.Gen, o.ID)
	case model.Effect:
		return fmt.Sprintf("effect pipeline=%d armed=%d kind=%s id=%d", o.Pipeline, o.Armed, o.Kind, o.ID)
	case model.ReadGen:
		return fmt.Sprintf("status pipeline=%d", o.Pipeline)
	case model.Complete:
		return fmt.Sprintf("complete pipeline=%d id=%d", o.Pipeline, o.ID)
	case model.ReadLatest:
		return fmt.Sprintf("read pipeline=%d", o.Pipeline)
	case model.SavepointCommit:
		return fmt.Sprintf("commit job=%d id=%d", o.Job, o.ID)
	case model.SavepointDelete:
		return fmt.Sprintf("delete job=%d id=%d", o.Job, o.ID)
	case model.SavepointList:
		return fmt.Sprintf("list job=%d", o.Job)
	}
	return fmt.Sprintf("unknown-input %q", fmt.Sprint(in))
}

func formatOutput(out any) string {
	switch o := out.(type) {
	case model.TriggerResult:
		return fmt.Sprintf("started=%t", o.Started)
	case model.EffectResult:
		if !o.Failed {
			return "dropped=true"
		}
		return fmt.Sprintf("failed=%d", o.Gen)
	case model.ReadGenResult:
		return fmt.Sprintf("gen=%d failed=%t", o.Gen, o.Failed)
	case model.ReadResult:
		return fmt.Sprintf("id=%d", o.ID)
	case model.SavepointResult:
		return fmt.Sprintf("ok=%t", o.OK)
	case model.SavepointIDs:
		s := make([]string, len(o))
		for i, id := range o {
			s[i] = strconv.FormatInt(id, 10)
		}
		return "ids=" + strings.Join(s, ",")
	}
	return ""
}
