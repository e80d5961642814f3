package k8s

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The manifests are written by this small emitter rather than by marshalling
// k8s.io/api types: linking k8s.io/api and apimachinery would add many
// megabytes to a binary that also runs as the load generator, for three
// objects. The emitter knows three node kinds, enough for Kubernetes objects:
//
//	obj  — an ordered mapping (the order is the one people expect to read:
//	       apiVersion, kind, metadata, spec)
//	list — a sequence
//	string, int, bool — scalars
//
// The tests decode every document strictly with Kubernetes' own types, so a
// key the emitter got wrong, or a string it let through unquoted that YAML
// would read as a number or a boolean, fails there.

// field is one key of an obj.
type field struct {
	key string
	val any
}

// obj is an ordered YAML mapping.
type obj []field

// list is a YAML sequence.
type list []any

// plainString matches the strings written without quotes: they start with a
// letter, '/' or '_' (so never a number, '-', '.', or a YAML indicator) and
// hold only characters without meaning in a plain scalar.
var plainString = regexp.MustCompile(`^[A-Za-z/_][A-Za-z0-9/_.\-]*$`)

// yamlWords are plain scalars that YAML 1.1 readers (sigs.k8s.io/yaml, via
// go-yaml v2, is one) take for booleans or null.
var yamlWords = map[string]bool{
	"y": true, "yes": true, "n": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true,
}

// scalar renders a string, int or bool.
func scalar(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		if plainString.MatchString(x) && !yamlWords[strings.ToLower(x)] {
			return x
		}
		// Go's quoting is valid YAML double-quoted style for valid UTF-8
		// (\n, \t, \", \\, \uXXXX, \UXXXXXXXX mean the same in both); the
		// spec checks refuse invalid UTF-8 before anything is emitted.
		return strconv.Quote(x)
	}
	// Only the code in this package builds nodes: a type it does not expect
	// is a bug there, rendered visibly rather than silently dropped.
	return strconv.Quote("BUG: unexpected YAML node type")
}

// emitDoc writes one document (a top-level mapping).
func emitDoc(b *strings.Builder, o obj) {
	emitObj(b, o, 0, "")
}

// emitObj writes a mapping at indent; first, when not "", is written instead
// of the indentation before the first key (a sequence item's "- ").
func emitObj(b *strings.Builder, o obj, indent int, first string) {
	pad := strings.Repeat(" ", indent)
	for i, f := range o {
		if i == 0 && first != "" {
			b.WriteString(first)
		} else {
			b.WriteString(pad)
		}
		b.WriteString(scalar(f.key))
		b.WriteByte(':')
		emitValue(b, f.val, indent)
	}
}

// emitValue writes what follows "key:" for a value at the key's indent.
func emitValue(b *strings.Builder, v any, indent int) {
	switch x := v.(type) {
	case obj:
		if len(x) == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteByte('\n')
		emitObj(b, x, indent+2, "")
	case list:
		if len(x) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteByte('\n')
		emitList(b, x, indent+2)
	case block:
		emitBlock(b, string(x), indent+2)
	default:
		b.WriteByte(' ')
		b.WriteString(scalar(v))
		b.WriteByte('\n')
	}
}

func emitList(b *strings.Builder, l list, indent int) {
	pad := strings.Repeat(" ", indent)
	for _, item := range l {
		switch x := item.(type) {
		case obj:
			if len(x) == 0 {
				b.WriteString(pad + "- {}\n")
				continue
			}
			emitObj(b, x, indent+2, pad+"- ")
		case list:
			// Not needed by any Kubernetes field rendered here; flow style
			// keeps it correct should it ever be.
			b.WriteString(pad + "- [")
			for i, y := range x {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(scalar(y))
			}
			b.WriteString("]\n")
		default:
			b.WriteString(pad + "- " + scalar(item) + "\n")
		}
	}
}

// block is a multi-line string written as a YAML literal block (the study
// file in the ConfigMap stays readable in the manifest and in kubectl edit).
type block string

// emitBlock writes " |…" and the text's lines at indent, or a quoted
// scalar when the text holds something a literal block cannot carry
// (carriage returns, other control characters, a BOM).
func emitBlock(b *strings.Builder, s string, indent int) {
	if !literalSafe(s) {
		b.WriteString(" " + strconv.Quote(s) + "\n")
		return
	}
	// Chomping: "-" strips the final line break, "" keeps exactly one, "+"
	// keeps them all; the text's own ending decides.
	body := strings.TrimRight(s, "\n")
	chomp := "+"
	switch len(s) - len(body) {
	case 0:
		chomp = "-"
	case 1:
		chomp = ""
	}
	// An explicit indentation indicator: without it a first line starting
	// with a space would set the block's indentation itself.
	b.WriteString(" |" + strconv.Itoa(2) + chomp + "\n")
	pad := strings.Repeat(" ", indent)
	for _, line := range strings.Split(body, "\n") {
		if line == "" {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(pad + line + "\n")
	}
	for range len(s) - len(body) - 1 {
		b.WriteByte('\n')
	}
}

func literalSafe(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r == 0xfeff || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return true
}
