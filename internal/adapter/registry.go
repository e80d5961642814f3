package adapter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
)

// tools are the registered tools in detection order (ascending
// DetectOrder).
var tools []*Tool

// Register adds a tool with everything it declares: what import reads
// (Detect, Parse, …), how a study cell runs it (Build, Load, Writes, …), the
// parameters of a kind only tools run (KindParams) and what reports need of
// that kind (KindInfo, which Register passes on to internal/kinds). Each
// tool's file calls it once, from init, with the whole Tool; it returns the
// registered tool. It panics on a tool without a name, a detector or (unless
// Unsupported) a parser and its Formats, on a name or a DetectOrder
// registered before, on KindParams or KindInfo for a kind another tool
// declared them for, and on a KindInfo of another kind than the tool's.
func Register(t Tool) *Tool {
	if err := registrable(&t); err != nil {
		panic("adapter.Register: " + err.Error())
	}
	if t.KindInfo != nil {
		info := *t.KindInfo
		info.Kind = t.Kind
		kinds.Register(info)
	}
	registered := &t
	i, _ := slices.BinarySearchFunc(tools, registered.DetectOrder, func(o *Tool, order int) int { return o.DetectOrder - order })
	// A new slice rather than an insert in place: a test that registers a
	// tool restores the one it saved.
	tools = slices.Insert(slices.Clone(tools), i, registered)
	return registered
}

// registrable says what keeps t from being registered beside the tools
// registered so far.
func registrable(t *Tool) error {
	switch {
	case t.Name == "":
		return fmt.Errorf("a tool without a Name")
	case t.Detect == nil:
		return fmt.Errorf("tool %s has no Detect", t.Name)
	case t.Unsupported == "" && (t.Parse == nil || t.Formats == ""):
		return fmt.Errorf("tool %s is read (no Unsupported) but lacks Parse or Formats", t.Name)
	case t.KindInfo != nil && t.KindInfo.Kind != "" && t.KindInfo.Kind != t.Kind:
		return fmt.Errorf("tool %s of kind %q declares kind information for %q", t.Name, t.Kind, t.KindInfo.Kind)
	case (t.KindParams != nil || t.KindInfo != nil) && t.Kind == "":
		return fmt.Errorf("tool %s declares its kind's parameters or information without a Kind", t.Name)
	}
	for _, o := range tools {
		switch {
		case o.Name == t.Name:
			return fmt.Errorf("tool %s registered twice", t.Name)
		case o.DetectOrder == t.DetectOrder:
			return fmt.Errorf("tools %s and %s have the same DetectOrder %d: give each its place in detection order", o.Name, t.Name, t.DetectOrder)
		case o.Kind == t.Kind && o.KindParams != nil && t.KindParams != nil:
			return fmt.Errorf("tools %s and %s both declare the parameters of kind %s: one tool of a kind declares them", o.Name, t.Name, t.Kind)
		}
	}
	return nil
}

// Tools returns the registered tools in detection order.
func Tools() []*Tool { return tools }

// Lookup returns the tool named name.
func Lookup(name string) (*Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// KindParams returns the parameters of a kind only tools run (fio), as a
// tool of the kind declares them (Tool.KindParams).
func KindParams(kind string) ([]params.Spec, bool) {
	for _, t := range tools {
		if t.Kind == kind && t.KindParams != nil {
			return t.KindParams, true
		}
	}
	return nil, false
}

// Readable returns the names of the tools whose outputs Parse reads, in
// detection order.
func Readable() []string {
	var out []string
	for _, t := range readable() {
		out = append(out, t.Name)
	}
	return out
}

// Supported describes the formats Parse reads, in detection order, for
// error messages and help.
func Supported() string {
	var formats []string
	for _, t := range readable() {
		formats = append(formats, t.Formats)
	}
	return strings.Join(formats, ", ")
}

// readable are the tools whose outputs Parse reads, in detection order.
func readable() []*Tool {
	var out []*Tool
	for _, t := range tools {
		if t.Unsupported == "" {
			out = append(out, t)
		}
	}
	return out
}
