package opensearch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// The _bulk answer's scan against the decode a typed client does, on an
// answer of 5000 indexed items without errors (about 1 MB), as a bulk of
// 5000 documents gets it:
//
//	go test -run XXX -bench BulkAnswer ./internal/driver/opensearch/
const benchItems = 5000

func bulkAnswer(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"took":412,"errors":false,"items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"index":{"_index":"logs-2024.01.01","_id":"doc%07d","_version":1,"result":"created","forced_refresh":false,`+
			`"_shards":{"total":2,"successful":1,"failed":0},"_seq_no":%d,"_primary_term":1,"status":201}}`, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func BenchmarkBulkAnswerScan(b *testing.B) {
	answer := bulkAnswer(benchItems)
	b.ReportAllocs()
	for b.Loop() {
		if took, errs, ok := scanBulk(answer); !ok || errs || took != 412 {
			b.Fatal("scan failed")
		}
	}
}

// BenchmarkBulkAnswerDecode decodes the items as opensearchapi's
// BulkResp would (every item's fields).
func BenchmarkBulkAnswerDecode(b *testing.B) {
	answer := bulkAnswer(benchItems)
	type item struct {
		Index   string `json:"_index"`
		ID      string `json:"_id"`
		Version int64  `json:"_version"`
		Result  string `json:"result"`
		Shards  struct {
			Total, Successful, Failed int
		} `json:"_shards"`
		SeqNo       int64           `json:"_seq_no"`
		PrimaryTerm int64           `json:"_primary_term"`
		Status      int             `json:"status"`
		Error       json.RawMessage `json:"error"`
	}
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		var r struct {
			Took   int64             `json:"took"`
			Errors bool              `json:"errors"`
			Items  []map[string]item `json:"items"`
		}
		if err := json.Unmarshal(answer, &r); err != nil || len(r.Items) != benchItems {
			b.Fatal(err)
		}
	}
}

// BenchmarkBulkAnswerScanItemsFirst is the scan's worst case: an answer
// that put "items" before "errors" would be walked through.
func BenchmarkBulkAnswerScanItemsFirst(b *testing.B) {
	answer := bulkAnswer(benchItems)
	answer = append([]byte(`{"items":`), answer[bytes.Index(answer, []byte(`[`)):len(answer)-1]...)
	answer = append(answer, `,"took":412,"errors":false}`...)
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if took, errs, ok := scanBulk(answer); !ok || errs || took != 412 {
			b.Fatal("scan failed")
		}
	}
}
