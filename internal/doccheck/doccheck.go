// Package doccheck checks the project's tracked text files: every relative
// link of a Markdown file names a file or folder that exists, and no file
// carries an absolute path of the machine that wrote it (a folder under
// `/work`, `/tmp`, `/root`, `/home` or `/Users`). Each check is a function
// of one file's contents, so that a test can plant a problem and see it
// found; doccheck_test.go runs them over the files `git ls-files` lists.
package doccheck

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// Problem is one finding in one file.
type Problem struct {
	File string // slash-separated, relative to the repository root
	Line int    // 1-based
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

var (
	// [text](target) and ![alt](target), the text on one or more lines,
	// with at most one level of nested brackets; an optional title.
	inlineLink = regexp.MustCompile(`\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)`)
	// [label]: target, a reference definition.
	refDef = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^<>\n]*>|\S+)`)
	// href="target" and src="target" of inline HTML.
	htmlLink = regexp.MustCompile(`\b(?:href|src)\s*=\s*"([^"\n]*)"`)
	// a URL scheme (https:, mailto:, file:): not a relative link.
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	fence  = regexp.MustCompile("^ {0,3}(```+|~~~+)")
)

// Link is one relative link of a Markdown file.
type Link struct {
	Line   int
	Target string // as written, without its #fragment
	Path   string // resolved: slash-separated, relative to the repository root
}

// Links returns the relative links of the Markdown file file (its path
// relative to the repository root) with contents src: inline links and
// images, reference definitions and HTML href and src attributes, outside
// code blocks and code spans. URLs (a scheme, or //host), pure #anchors
// and empty targets are not relative links; a fragment or query is cut
// off, escapes (%20) decoded, and a target starting with / is taken from
// the repository root, as GitHub does. Path is outside the repository
// ("../" first) when the link leaves it.
func Links(file string, src []byte) []Link {
	text := blankCode(src)
	var out []Link
	add := func(off int, target string) {
		target = strings.TrimSpace(target)
		target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
		if target == "" || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "//") || scheme.MatchString(target) {
			return
		}
		if i := strings.IndexAny(target, "#?"); i >= 0 {
			target = target[:i]
		}
		if target == "" {
			return
		}
		p, err := url.PathUnescape(target)
		if err != nil {
			p = target
		}
		if strings.HasPrefix(p, "/") {
			p = path.Clean(strings.TrimPrefix(p, "/"))
		} else {
			p = path.Join(path.Dir(file), p)
		}
		out = append(out, Link{Line: 1 + bytes.Count(text[:off], []byte("\n")), Target: target, Path: p})
	}
	for _, re := range []*regexp.Regexp{inlineLink, refDef, htmlLink} {
		for _, m := range re.FindAllSubmatchIndex(text, -1) {
			add(m[2], string(src[m[2]:m[3]]))
		}
	}
	return out
}

// BrokenLinks returns the relative links of the Markdown file file with
// contents src (Links) that leave the repository or name nothing:
// exists reports whether a slash-separated path relative to the
// repository root names a file or folder.
func BrokenLinks(file string, src []byte, exists func(string) bool) []Problem {
	var out []Problem
	for _, l := range Links(file, src) {
		switch {
		case l.Path == ".." || strings.HasPrefix(l.Path, "../"):
			out = append(out, Problem{file, l.Line, fmt.Sprintf("link %s leaves the repository", l.Target)})
		case !exists(l.Path):
			out = append(out, Problem{file, l.Line, fmt.Sprintf("broken link %s: no %s", l.Target, l.Path)})
		}
	}
	return out
}

// blankCode returns src with fenced code blocks and code spans replaced
// by spaces (newlines kept, so that offsets and line numbers hold): a
// link written in code is no link.
func blankCode(src []byte) []byte {
	text := bytes.Clone(src)
	lines := bytes.SplitAfter(text, []byte("\n"))
	var open []byte // the fence of the open code block
	para := 0       // offset of the paragraph being collected
	off := 0
	flush := func(end int) { blankSpans(text[para:end]) }
	for _, l := range lines {
		trimmed := bytes.TrimRight(l, "\r\n")
		switch m := fence.FindSubmatch(trimmed); {
		case open != nil:
			if m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && len(bytes.TrimSpace(trimmed[len(m[0]):])) == 0 {
				open = nil
			}
			blank(l)
			para = off + len(l)
		case m != nil:
			flush(off)
			open = bytes.Clone(m[1])
			blank(l)
			para = off + len(l)
		case len(bytes.TrimSpace(l)) == 0:
			flush(off)
			para = off + len(l)
		}
		off += len(l)
	}
	if open == nil {
		flush(len(text))
	}
	return text
}

// blankSpans blanks the code spans of one paragraph: a run of n
// backticks up to the next run of exactly n.
func blankSpans(p []byte) {
	for i := 0; i < len(p); {
		if p[i] != '`' {
			i++
			continue
		}
		n := runLen(p, i)
		end := -1
		for j := i + n; j < len(p); {
			if p[j] != '`' {
				j++
				continue
			}
			if m := runLen(p, j); m == n {
				end = j
				break
			} else {
				j += m
			}
		}
		if end < 0 {
			i += n // no closing run: literal backticks
			continue
		}
		blank(p[i+n : end])
		i = end + n
	}
}

func runLen(p []byte, i int) int {
	n := 0
	for i+n < len(p) && p[i+n] == '`' {
		n++
	}
	return n
}

// blank replaces every byte of b but newlines by a space.
func blank(b []byte) {
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
}

// machinePath matches an absolute path into a folder of a machine: a
// home, a scratch or a work folder. It must start a word: a path inside a
// URL (https://host/home/...), a relative path (a/tmp/b, ./tmp/b) or a
// file: URL's root (file:///tmp/) is not one.
var machinePath = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.~/\\])(/(?:work|tmp|root|home|Users)/[^\s"'` + "`" + `<>()\[\]{},;|*]*)`)

// Allow is one allowed absolute path: Match, a regular expression, must
// match the whole path found (as MachinePaths reports it), in a file
// whose slash-separated path the regular expression File matches whole
// ("": any file); Reason says why the path may stay.
type Allow struct {
	File, Match, Reason string
}

// MachinePaths returns the absolute machine paths in the contents src of
// file (slash-separated, relative to the repository root) that no entry
// of allow covers.
func MachinePaths(file string, src []byte, allow []Allow) []Problem {
	var out []Problem
	for i, l := range bytes.Split(src, []byte("\n")) {
		for _, m := range machinePath.FindAllSubmatch(l, -1) {
			p := string(m[1])
			if !allowedPath(allow, file, p) {
				out = append(out, Problem{file, i + 1, "absolute path of a machine: " + p})
			}
		}
	}
	return out
}

// allowedPath reports whether an entry of allow covers path p in file.
func allowedPath(allow []Allow, file, p string) bool {
	for _, a := range allow {
		if a.File != "" && !whole(a.File).MatchString(file) {
			continue
		}
		if whole(a.Match).MatchString(p) {
			return true
		}
	}
	return false
}

// whole compiles a regular expression that must match a whole string.
func whole(re string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + re + `)$`) }

// Binary reports whether contents look binary: a NUL byte in the first
// 8000 bytes, git's own rule.
func Binary(src []byte) bool { return bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0 }
