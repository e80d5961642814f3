package mongodb

import (
	"fmt"
	"math"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/fairbench/fairbench/internal/driver"
)

// The measured calls hand the official driver BSON they built themselves
// (bson.Raw): encoding a map[string]any through the driver's reflection
// costs an allocation per field and per value, and the workloads' documents
// hold only a few plain types. _id goes first, where MongoDB keeps it.

// appendDoc appends d as a BSON document, its "_id" first.
func appendDoc(dst []byte, d driver.Doc) ([]byte, error) {
	start, dst := bsoncore.AppendDocumentStart(dst)
	var err error
	if id, ok := d["_id"]; ok {
		if dst, err = appendValue(dst, "_id", id); err != nil {
			return dst, err
		}
	}
	for k, v := range d {
		if k == "_id" {
			continue
		}
		if dst, err = appendValue(dst, k, v); err != nil {
			return dst, err
		}
	}
	return bsoncore.AppendDocumentEnd(dst, start)
}

// appendValue appends one element. []byte becomes binary subtype 0, as
// YCSB's mongodb binding stores its fields; int becomes a 64-bit integer.
func appendValue(dst []byte, key string, v any) ([]byte, error) {
	if strings.IndexByte(key, 0) >= 0 {
		// BSON keys are C strings: the NUL would end the key early and
		// the rest would be read as the value.
		return dst, fmt.Errorf("field name %q holds a NUL byte, which BSON cannot store", key)
	}
	switch v := v.(type) {
	case []byte:
		return bsoncore.AppendBinaryElement(dst, key, 0, v), nil
	case string:
		return bsoncore.AppendStringElement(dst, key, v), nil
	case int:
		return bsoncore.AppendInt64Element(dst, key, int64(v)), nil
	case int64:
		return bsoncore.AppendInt64Element(dst, key, v), nil
	case int32:
		return bsoncore.AppendInt32Element(dst, key, v), nil
	case float64:
		return bsoncore.AppendDoubleElement(dst, key, v), nil
	case float32:
		return bsoncore.AppendDoubleElement(dst, key, float64(v)), nil
	case bool:
		return bsoncore.AppendBooleanElement(dst, key, v), nil
	case nil:
		return bsoncore.AppendNullElement(dst, key), nil
	case time.Time:
		return bsoncore.AppendDateTimeElement(dst, key, v.UnixMilli()), nil
	case driver.Doc:
		idx, out := bsoncore.AppendDocumentElementStart(dst, key)
		for k, e := range v {
			var err error
			if out, err = appendValue(out, k, e); err != nil {
				return out, err
			}
		}
		return bsoncore.AppendDocumentEnd(out, idx)
	}
	// Anything else (arrays, uints, bson types) through the driver's codecs.
	t, data, err := bson.MarshalValue(v)
	if err != nil {
		return dst, fmt.Errorf("field %q: %T cannot be stored in BSON: %w", key, v, err)
	}
	return bsoncore.AppendValueElement(dst, key, bsoncore.Value{Type: bsoncore.Type(t), Data: data}), nil
}

// appendIDFilter appends {_id: id}.
func appendIDFilter(dst []byte, id string) []byte {
	start, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendStringElement(dst, "_id", id)
	dst, _ = bsoncore.AppendDocumentEnd(dst, start)
	return dst
}

// appendFromFilter appends {_id: {$gte: id}}.
func appendFromFilter(dst []byte, id string) []byte {
	start, dst := bsoncore.AppendDocumentStart(dst)
	inner, dst := bsoncore.AppendDocumentElementStart(dst, "_id")
	dst = bsoncore.AppendStringElement(dst, "$gte", id)
	dst, _ = bsoncore.AppendDocumentEnd(dst, inner)
	dst, _ = bsoncore.AppendDocumentEnd(dst, start)
	return dst
}

// appendSet appends {$set: set}.
func appendSet(dst []byte, set driver.Doc) ([]byte, error) {
	start, dst := bsoncore.AppendDocumentStart(dst)
	inner, dst := bsoncore.AppendDocumentElementStart(dst, "$set")
	for k, v := range set {
		var err error
		if dst, err = appendValue(dst, k, v); err != nil {
			return dst, err
		}
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, inner)
	return bsoncore.AppendDocumentEnd(dst, start)
}

// projection is {f: 1, ...} for the named fields.
func projection(fields []string) []byte {
	start, dst := bsoncore.AppendDocumentStart(nil)
	for _, f := range fields {
		dst = bsoncore.AppendInt32Element(dst, f, 1)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, start)
	return dst
}

// decodeDoc turns a document the server sent into a Doc: binary values
// become []byte (sharing raw's memory, which is the call's own), strings
// string, every integer int64, doubles float64, embedded documents Doc,
// arrays []any; other BSON types are left to the driver's decoder.
func decodeDoc(raw []byte) (driver.Doc, error) {
	doc := bsoncore.Document(raw)
	if err := doc.Validate(); err != nil {
		return nil, fmt.Errorf("the server sent a malformed document: %w", err)
	}
	out := make(driver.Doc, 8)
	rem := raw[4 : len(raw)-1]
	for len(rem) > 0 {
		elem, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return nil, fmt.Errorf("the server sent a malformed document")
		}
		rem = rest
		v, err := decodeValue(elem.Value())
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", elem.Key(), err)
		}
		out[elem.Key()] = v
	}
	return out, nil
}

func decodeValue(v bsoncore.Value) (any, error) {
	switch v.Type {
	case bsoncore.TypeBinary:
		_, b := v.Binary()
		return b, nil
	case bsoncore.TypeString:
		return v.StringValue(), nil
	case bsoncore.TypeInt32:
		return int64(v.Int32()), nil
	case bsoncore.TypeInt64:
		return v.Int64(), nil
	case bsoncore.TypeDouble:
		return v.Double(), nil
	case bsoncore.TypeBoolean:
		return v.Boolean(), nil
	case bsoncore.TypeNull:
		return nil, nil
	case bsoncore.TypeDateTime:
		return time.UnixMilli(v.DateTime()).UTC(), nil
	case bsoncore.TypeEmbeddedDocument:
		return decodeDoc(v.Document())
	case bsoncore.TypeArray:
		vals, err := v.Array().Values()
		if err != nil {
			return nil, err
		}
		out := make([]any, len(vals))
		for i, e := range vals {
			if out[i], err = decodeValue(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var out any
	err := bson.RawValue{Type: bson.Type(v.Type), Value: v.Data}.Unmarshal(&out)
	return out, err
}

// asInt64 reads a counter the server may send as int32, int64 or double.
func asInt64(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32()), true
	case bsoncore.TypeInt64:
		return v.Int64(), true
	case bsoncore.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}
