package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

const (
	ndjson = "application/x-ndjson"
	// maxReasons bounds the engine texts kept per bulk request: a request
	// of 5000 refused items would otherwise carry 5000 copies of one text.
	maxReasons = 5
)

// Bulk implements driver.Search: POST /{index}/_bulk. The answer is read
// whole (the connection goes back to the pool only then) but decoded only
// when its "errors" flag is true.
func (s *conn) Bulk(ctx context.Context, index string, body []byte, items int) (driver.BulkResult, error) {
	res := driver.BulkResult{Items: items, Bytes: int64(len(body))}
	if s.bulkIndex != index || s.bulkPath == "" {
		s.bulkIndex, s.bulkPath = index, "/"+url.PathEscape(index)+"/_bulk"
	}
	status, err := s.c.do(ctx, http.MethodPost, s.bulkPath, body, ndjson, &s.buf)
	if err != nil {
		return res, err
	}
	b := s.buf.Bytes()
	if status/100 != 2 {
		return res, s.c.httpError("bulk into "+index, status, b)
	}
	took, failed, ok := scanBulk(b)
	if !ok {
		return res, fmt.Errorf("bulk into %s: the answer has no top-level \"errors\": %.200s", index, b)
	}
	res.Took = time.Duration(took) * time.Millisecond
	if failed {
		if res.Failed, err = bulkFailures(b); err != nil {
			return res, fmt.Errorf("bulk into %s: %w", index, err)
		}
	}
	return res, nil
}

// bulkFailures decodes the items of a _bulk answer whose "errors" is true
// and lists those with an error, by position. Items without an error but
// with a status of 404 (a delete of a missing document) did what was asked.
func bulkFailures(b []byte) ([]driver.ItemError, error) {
	var r struct {
		Items []map[string]struct {
			Status int          `json:"status"`
			Error  *engineError `json:"error"`
		} `json:"items"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decoding the items of an answer with errors: %w", err)
	}
	var out []driver.ItemError
	for i, item := range r.Items {
		for _, it := range item { // one key: the action (index, create, update, delete)
			if it.Error == nil {
				continue
			}
			ie := driver.ItemError{Index: i, Status: it.Status, Class: classifyItem(it.Status, it.Error.Type)}
			if len(out) < maxReasons {
				ie.Reason = it.Error.text()
			}
			out = append(out, ie)
		}
	}
	return out, nil
}

// scanBulk finds the top-level "took" and "errors" of a _bulk answer
// without decoding it: it walks the top-level keys and skips their values
// by counting brackets outside strings. OpenSearch and Elasticsearch write
// both keys before "items", so the items are not even scanned; the walk
// stays correct, only slower, for an answer that puts them last. ok is
// false when there is no "errors".
func scanBulk(b []byte) (took int64, errs, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, false, false
	}
	i++
	haveTook := false
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return took, errs, ok
		}
		end := skipString(b, i)
		if end < 0 {
			return took, errs, false
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return took, errs, false
		}
		i = skipSpace(b, i+1)
		start := i
		i = skipValue(b, i)
		if i < 0 {
			return took, errs, false
		}
		val := bytes.TrimSpace(b[start:i])
		switch string(key) { // no allocation: the compiler compares in place
		case "took":
			if n, err := strconv.ParseInt(string(val), 10, 64); err == nil {
				took, haveTook = n, true
			}
		case "errors":
			if string(val) != "true" && string(val) != "false" {
				return took, false, false // cut short, or not a _bulk answer
			}
			errs, ok = string(val) == "true", true
		}
		if ok && haveTook {
			return took, errs, ok
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return took, errs, ok
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"'),
// or -1 when it does not end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i], or -1 when
// it does not end.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			if i = skipString(b, i); i < 0 {
				return -1
			}
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object: a scalar ended here
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	if depth == 0 {
		return i
	}
	return -1
}

// Query implements driver.Search: POST /{index}/_search. Hits is
// hits.total.value (exact or a lower bound, as the body's track_total_hits
// asks), or the hits returned when the engine counts none.
func (s *conn) Query(ctx context.Context, index string, body []byte) (driver.SearchResult, error) {
	status, err := s.c.do(ctx, http.MethodPost, "/"+url.PathEscape(index)+"/_search", body, "application/json", &s.buf)
	if err != nil {
		return driver.SearchResult{}, err
	}
	if status/100 != 2 {
		return driver.SearchResult{}, s.c.httpError("search "+index, status, s.buf.Bytes())
	}
	var r struct {
		Took int64 `json:"took"`
		Hits struct {
			Total json.RawMessage `json:"total"`
			Hits  []struct{}      `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(s.buf.Bytes(), &r); err != nil {
		return driver.SearchResult{}, fmt.Errorf("search %s: decoding the answer: %w", index, err)
	}
	res := driver.SearchResult{Hits: int64(len(r.Hits.Hits)), Took: time.Duration(r.Took) * time.Millisecond}
	var total struct {
		Value int64 `json:"value"`
	}
	switch t := bytes.TrimSpace(r.Hits.Total); {
	case len(t) > 0 && t[0] == '{':
		if json.Unmarshal(t, &total) == nil {
			res.Hits = total.Value
		}
	case len(t) > 0 && t[0] != 'n': // Elasticsearch 6: a plain number
		if n, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			res.Hits = n
		}
	}
	return res, nil
}
