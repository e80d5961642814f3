// Package redact removes secrets from text that fairbench prints or
// stores: the one rule every message, error and stored field passes.
//
// A secret is found two ways. By its place: the password field of a URL
// (//user:password@) and a key/value pair whose key names a secret
// (password=, token=, secret=, api_key=) are replaced whatever the value,
// however short. By its value: every exact occurrence of a known password
// (the targets' own) of at least minLength characters. A shorter one is
// not searched for inside the text: a password of one to three characters
// occurs inside ordinary words ("unexpected" holds p, "connection" holds
// on, "the" is a word of most messages), so replacing it would make every
// message unreadable while hiding nothing an attacker could not guess in
// a few thousand tries anyway; its place in a URL is still redacted.
package redact

import (
	"regexp"
	"sort"
	"strings"
)

// mask is what a secret is replaced with.
const mask = "xxxxx"

// minLength is the shortest password searched for by value (see the
// package comment for why).
const minLength = 4

// Keyword finds secrets in libpq keyword/value strings and messages
// ("host=x password=y"); group 1 is the key, group 2 the value.
var Keyword = regexp.MustCompile(`(?i)\b((?:ssl)?password|token|secret|api_?key)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]+)`)

// Userinfo finds user:password@ in URLs net/url cannot parse, parses
// without a scheme ("//user:password@host"), or that sit inside a
// message; group 1 is up to the user, group 2 the password.
var Userinfo = regexp.MustCompile(`(//[^:/@\s]*):([^@\s]*)@`)

// ByPlace replaces the passwords of URLs and of keyword pairs in s.
func ByPlace(s string) string {
	s = Userinfo.ReplaceAllString(s, "$1:"+mask+"@")
	return Keyword.ReplaceAllString(s, "$1="+mask)
}

// Text returns s without the secrets: by place, then each of secrets of
// at least minLength characters wherever it occurs, the longest first (a
// password that contains another is replaced whole).
func Text(s string, secrets []string) string {
	s = ByPlace(s)
	long := make([]string, 0, len(secrets))
	for _, x := range secrets {
		if len(x) >= minLength {
			long = append(long, x)
		}
	}
	sort.SliceStable(long, func(i, j int) bool { return len(long[i]) > len(long[j]) })
	for _, x := range long {
		s = strings.ReplaceAll(s, x, mask)
	}
	return s
}

// ByPlaceValues returns the secrets ByPlace would replace in s (URL
// passwords, values of password=, token=, ...), so that the same values are
// also removed where they occur elsewhere: a command line that names a
// password in a URL and again in PGPASSWORD=.
func ByPlaceValues(s string) []string {
	var out []string
	for _, m := range Userinfo.FindAllStringSubmatch(s, -1) {
		if m[2] != "" {
			out = append(out, m[2])
		}
	}
	for _, m := range Keyword.FindAllStringSubmatch(s, -1) {
		if v := strings.Trim(m[2], "'"); v != "" {
			out = append(out, v)
		}
	}
	return out
}
