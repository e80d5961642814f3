package escape

import (
	"bytes"
	"testing"
)

func TestEachFormatsRule(t *testing.T) {
	for _, tc := range []struct {
		rule     func(string) string
		name     string
		in, want string
	}{
		{Terminal, "Terminal", "red\x1b[31mX\r\n\t\u009b\u202e\u2066ok", `red\x1b[31mX\r\n\t\u009b\u202e\u2066ok`},
		{TerminalText, "TerminalText", "a\x1b[2A\nb\tc\r", "a\\x1b[2A\nb\tc\\r"},
		{MarkdownText, "MarkdownText", `<script>alert(1)</script> "><img src=x> <!-- &amp; &#60; p<0.001 > 10 % a & b`,
			`&lt;script>alert(1)&lt;/script> ">&lt;img src=x> &lt;!-- &amp;amp; &amp;#60; p<0.001 > 10 % a & b`},
		{MarkdownText, "MarkdownText", "x\x1b[31m", `x\x1b[31m`},
		{CSV, "CSV", "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
		{CSV, "CSV", "+1+cmd", "'+1+cmd"},
		{CSV, "CSV", "@SUM(A1)", "'@SUM(A1)"},
		{CSV, "CSV", "\t=1", "'\t=1"},
		{CSV, "CSV", "\r=1", "'\r=1"},
		{CSV, "CSV", "-cmd", "'-cmd"},
		{CSV, "CSV", "-27.3", "-27.3"},
		{CSV, "CSV", "-27.3 %", "-27.3 %"},
		{CSV, "CSV", "-1e+12", "-1e+12"},
		{CSV, "CSV", "a=b", "a=b"},
		{CSV, "CSV", "", ""},
		{Benchstat, "Benchstat", "a b\tc\nd/e\x1b\u00a0f", "a_b_c_d_e__f"},
	} {
		if got := tc.rule(tc.in); got != tc.want {
			t.Errorf("%s(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// A rune cut by a write's end is escaped whole, with the next write.
func TestWriterKeepsRunesWhole(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, TerminalText)
	s := []byte("a\u202eb\u009bc")
	for i := range s {
		if _, err := w.Write(s[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := b.String(), `a\u202eb\u009bc`; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestHostileFindsTheFirst(t *testing.T) {
	if r, ok := Hostile("ok\u202ex\x1b"); !ok || r != '\u202e' {
		t.Errorf("Hostile = %U, %v", r, ok)
	}
	if _, ok := Hostile("<script>=cmd é 名前"); ok {
		t.Error("a printable name is hostile")
	}
}
