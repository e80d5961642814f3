package adapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// decodeJSON reads text, one JSON document of a tool (what names it in
// errors), into v. Its errors say what the decoder found and where, by byte
// offset and line: a document cut short is "truncated", invalid JSON is named
// as such, so that damage inside a file is never reported as a cut.
func decodeJSON(name, what, text string, v any) error {
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(v); err != nil {
		return jsonError(name, what, text, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		return &ParseError{File: name, Line: lineAtOffset(text, off), cause: errJSONDecoder,
			Msg: fmt.Sprintf("%s: text after the JSON document at offset %d: two outputs in one file, or an edited one", what, off)}
	}
	return nil
}

// errJSONDecoder marks errors the JSON decoder located: Parse does not
// second-guess them from the file's last line.
var errJSONDecoder = errors.New("located by the JSON decoder")

// jsonError locates an error of encoding/json in text.
func jsonError(name, what, text string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &ParseError{File: name, Line: lineAtOffset(text, int64(len(strings.TrimRight(text, " \t\r\n")))), cause: errJSONDecoder,
			Msg: fmt.Sprintf("%s ends at byte %d before its JSON document closes: the output is truncated", what, len(text))}
	case errors.As(err, &se):
		return &ParseError{File: name, Line: lineAtOffset(text, se.Offset), cause: errJSONDecoder,
			Msg: fmt.Sprintf("%s: invalid JSON at offset %d: %v", what, se.Offset, se)}
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the document"
		}
		return &ParseError{File: name, Line: lineAtOffset(text, te.Offset), cause: errJSONDecoder,
			Msg: fmt.Sprintf("%s: at offset %d, %s is a JSON %s, not %s", what, te.Offset, field, te.Value, te.Type)}
	}
	return &ParseError{File: name, Msg: fmt.Sprintf("%s: %v", what, err), cause: errJSONDecoder}
}

// lineAtOffset is the 1-based line of text holding byte off.
func lineAtOffset(text string, off int64) int {
	return strings.Count(text[:min(max(int(off), 0), len(text))], "\n") + 1
}
