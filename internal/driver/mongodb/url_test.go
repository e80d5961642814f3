package mongodb

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

const secret = "s3cr%2Ft-pw" // percent-encoded "s3cr/t-pw"

func TestParseURLOptions(t *testing.T) {
	cfg, err := parseURL("mongodb://u:" + secret + "@127.0.0.1:27018/bench?w=majority&journal=true&readPreference=secondaryPreferred&authSource=admin")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.database != "bench" || cfg.tls {
		t.Errorf("database %q tls %v", cfg.database, cfg.tls)
	}
	o := cfg.opts
	if o.MaxPoolSize == nil || *o.MaxPoolSize != 0 {
		t.Errorf("maxPoolSize = %v, want 0 (unlimited) when the URL has none", o.MaxPoolSize)
	}
	if o.WriteConcern == nil || o.WriteConcern.W != "majority" || o.WriteConcern.Journal == nil || !*o.WriteConcern.Journal {
		t.Errorf("write concern %+v", o.WriteConcern)
	}
	if o.ReadPreference == nil || o.ReadPreference.Mode().String() != "secondaryPreferred" {
		t.Errorf("read preference %v", o.ReadPreference)
	}
	if o.Auth == nil || o.Auth.AuthSource != "admin" || o.Auth.Password != "s3cr/t-pw" {
		t.Errorf("auth %+v", o.Auth)
	}
	if *o.ConnectTimeout != defaultConnectTimeout || *o.ServerSelectionTimeout != defaultServerSelectionTimeout {
		t.Errorf("timeouts %v %v", *o.ConnectTimeout, *o.ServerSelectionTimeout)
	}

	cfg, err = parseURL("mongodb://h1:27017,h2:27018/db?maxPoolSize=7&tls=true&tlsInsecure=true&serverSelectionTimeoutMS=1500")
	if err != nil {
		t.Fatal(err)
	}
	if *cfg.opts.MaxPoolSize != 7 || !cfg.tls || !cfg.insecure || *cfg.opts.ServerSelectionTimeout != 1500*time.Millisecond {
		t.Errorf("explicit options lost: pool %d tls %v insecure %v sst %v", *cfg.opts.MaxPoolSize, cfg.tls, cfg.insecure, *cfg.opts.ServerSelectionTimeout)
	}
}

// Every refused URL names the URL with its password redacted, says what to
// do, and never shows the password.
func TestParseURLErrorsRedactPassword(t *testing.T) {
	cases := map[string]struct{ url, want string }{
		"no database":       {"mongodb://u:" + secret + "@127.0.0.1:27018", "no database"},
		"empty path":        {"mongodb://u:" + secret + "@127.0.0.1:27018/", "no database"},
		"seed list, no db":  {"mongodb://u:" + secret + "@h1:27017,h2:27017/?w=1", "no database"},
		"unknown option":    {"mongodb://u:" + secret + "@127.0.0.1/db?maxPoolSise=3", "maxpoolsise"},
		"bad read pref":     {"mongodb://u:" + secret + "@127.0.0.1/db?readPreference=nearest-ish", "readPreference"},
		"bad tls value":     {"mongodb://u:" + secret + "@127.0.0.1/db?tls=maybe", "tls"},
		"bad journal value": {"mongodb://u:" + secret + "@127.0.0.1/db?journal=perhaps", "journal"},
		"w=0 and journal":   {"mongodb://u:" + secret + "@127.0.0.1/db?w=0&journal=true", "w=0"},
		"bad scheme":        {"mongo://u:" + secret + "@127.0.0.1/db", "mongodb://"},
		"bad database name": {"mongodb://u:" + secret + "@127.0.0.1/a.b", "may not contain"},
		"bad port":          {"mongodb://u:" + secret + "@127.0.0.1:99999/db", "port"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parseURL(c.url)
			if err == nil {
				t.Fatalf("%s accepted", c.url)
			}
			msg := err.Error()
			if strings.Contains(msg, "s3cr") {
				t.Fatalf("password in error: %s", msg)
			}
			if !strings.Contains(msg, "MongoDB URL") || !strings.Contains(msg, "xxxxx") {
				t.Errorf("error does not name the redacted URL: %s", msg)
			}
			if !strings.Contains(strings.ToLower(msg), strings.ToLower(c.want)) {
				t.Errorf("error %q does not mention %q", msg, c.want)
			}
		})
	}
}

// Open against a port nothing listens on fails within the URL's server
// selection timeout, without the password, and the error is a connection error.
func TestOpenClosedPort(t *testing.T) {
	url := "mongodb://u:" + secret + "@127.0.0.1:1/db?serverSelectionTimeoutMS=300&connectTimeoutMS=300"
	start := time.Now()
	_, err := Driver{}.Open(context.Background(), driver.Target{URL: url}, driver.Options{})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("Open took %v", time.Since(start))
	}
	if strings.Contains(err.Error(), "s3cr") || !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("error: %v", err)
	}
	if c := classify(err); c != result.ErrConnection {
		t.Errorf("class %q, want connection: %v", c, err)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err  error
		want result.ErrorClass
	}{
		{mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 11000, Message: "E11000 duplicate key"}}}, result.ErrConstraint},
		{mongo.CommandError{Code: 50, Name: "MaxTimeMSExpired"}, result.ErrTimeout},
		{context.DeadlineExceeded, result.ErrTimeout},
		{errors.Join(errors.New("x"), mongo.ErrClientDisconnected), result.ErrConnection},
		{mongo.CommandError{Code: 2, Message: "bad value"}, result.ErrOther},
		{errors.New("something"), result.ErrOther},
	}
	for _, c := range cases {
		if got := classify(c.err); got != c.want {
			t.Errorf("classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	for code, want := range map[int]result.ErrorClass{11000: result.ErrConstraint, 50: result.ErrTimeout, 121: result.ErrOther} {
		if got := classifyCode(code); got != want {
			t.Errorf("classifyCode(%d) = %q, want %q", code, got, want)
		}
	}
}

// The hand-built BSON reads back as the driver's decoder reads it, _id
// first, and decodeDoc gives the workloads' types back.
func TestBSONRoundTrip(t *testing.T) {
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	in := driver.Doc{"_id": "user1", "field0": []byte{0, 1, 2, 255}, "s": "text", "i": 42, "i64": int64(1) << 40,
		"f": 1.5, "b": true, "n": nil, "t": when, "sub": driver.Doc{"x": "y"}, "arr": []any{"a", int32(3)}}
	raw, err := appendDoc(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := bson.Raw(raw).Validate(); err != nil {
		t.Fatal(err)
	}
	if first := bson.Raw(raw).Index(0); first.Key() != "_id" {
		t.Errorf("first key %q", first.Key())
	}
	var viaDriver bson.M
	if err := bson.Unmarshal(raw, &viaDriver); err != nil {
		t.Fatal(err)
	}
	if b, ok := viaDriver["field0"].(bson.Binary); !ok || b.Subtype != 0 || !bytes.Equal(b.Data, []byte{0, 1, 2, 255}) {
		t.Errorf("field0 is %#v, want binary subtype 0", viaDriver["field0"])
	}
	out, err := decodeDoc(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out["field0"].([]byte), []byte{0, 1, 2, 255}) || out["s"] != "text" || out["i"] != int64(42) ||
		out["i64"] != int64(1)<<40 || out["f"] != 1.5 || out["b"] != true || out["n"] != nil || !out["t"].(time.Time).Equal(when) {
		t.Errorf("decoded %#v", out)
	}
	if sub, ok := out["sub"].(driver.Doc); !ok || sub["x"] != "y" {
		t.Errorf("sub %#v", out["sub"])
	}
	if arr, ok := out["arr"].([]any); !ok || len(arr) != 2 || arr[0] != "a" || arr[1] != int64(3) {
		t.Errorf("arr %#v", out["arr"])
	}
	if _, err := appendDoc(nil, driver.Doc{"bad\x00key": 1}); err == nil {
		t.Error("a NUL in a field name was accepted")
	}
	if _, err := appendDoc(nil, driver.Doc{"c": make(chan int)}); err == nil {
		t.Error("a channel was accepted")
	}
	if _, err := decodeDoc([]byte{5, 0, 0}); err == nil {
		t.Error("a truncated document was accepted")
	}
}

func TestRegistered(t *testing.T) {
	for _, u := range []string{"mongodb://h/db", "mongodb+srv://h/db"} {
		d, err := driver.ForURL(u)
		if err != nil || d.Name() != "mongodb" {
			t.Errorf("%s: %v %v", u, d, err)
		}
	}
}
