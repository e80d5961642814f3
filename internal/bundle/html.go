package bundle

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
)

// The element an HTML report carries its bundle in: a script element of a
// type no browser runs, so the page stays inert and self-contained, with
// the archive in base64 (whose alphabet holds no '<', so it cannot close
// the element early).
const (
	elementOpen  = `<script type="application/zip" id="fairbench-bundle">`
	elementClose = `</script>`
)

// Element returns the HTML element that carries data (a bundle) in a
// report.
func Element(data []byte) template.HTML {
	return template.HTML(elementOpen + base64.StdEncoding.EncodeToString(data) + elementClose)
}

// Extract returns the bundle an HTML report (page, read from path) carries.
func Extract(path string, page []byte) ([]byte, error) {
	i := bytes.Index(page, []byte(elementOpen))
	if i < 0 {
		return nil, fmt.Errorf("%s: an HTML page that carries no data: write the report with fairbench report --format html --embed-data, or give the results file", path)
	}
	rest := page[i+len(elementOpen):]
	if bytes.Contains(rest, []byte(elementOpen)) {
		return nil, fmt.Errorf("%s: the page carries two bundles: the report was changed after it was written", path)
	}
	j := bytes.Index(rest, []byte(elementClose))
	if j < 0 {
		return nil, fmt.Errorf("%s: the embedded data has no end: the report is truncated", path)
	}
	enc := bytes.TrimSpace(rest[:j])
	data := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(data, enc)
	if err != nil {
		return nil, fmt.Errorf("%s: the embedded data is not base64 (%v): the report was changed after it was written", path, err)
	}
	return data[:n], nil
}
