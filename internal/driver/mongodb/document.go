package mongodb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/fairbench/fairbench/internal/driver"
)

type (
	findOneOpts = *options.FindOneOptionsBuilder
	findOpts    = *options.FindOptionsBuilder
)

var (
	// Unordered, as YCSB's mongodb binding inserts its batches: one
	// duplicate does not stop the documents after it.
	unordered = options.InsertMany().SetOrdered(false)
	byID      = bson.D{{Key: "_id", Value: 1}}
)

// maxReasons bounds the engine's texts kept per bulk result.
const maxReasons = 5

// Insert implements driver.Document: InsertOne for one document, one
// unordered InsertMany for more. Documents the server refuses (duplicate
// _id) are items of the result; the error is for the request as a whole.
func (s *conn) Insert(ctx context.Context, collection string, docs []driver.Doc) (driver.BulkResult, error) {
	res := driver.BulkResult{Items: len(docs)}
	if len(docs) == 0 {
		return res, nil
	}
	// All documents go into one scratch buffer; the driver copies each
	// into its message, so the buffer is free again when the call returns.
	buf := s.enc.buf[:0]
	ends := s.enc.ends[:0]
	for i, d := range docs {
		var err error
		if buf, err = appendDoc(buf, d); err != nil {
			return res, fmt.Errorf("document %d: %w", i, err)
		}
		ends = append(ends, len(buf))
	}
	s.enc.buf, s.enc.ends = buf, ends
	res.Bytes = int64(len(buf))
	c := s.coll(collection)
	if len(docs) == 1 {
		_, err := c.InsertOne(ctx, bson.Raw(buf))
		return s.writeFailures(res, err)
	}
	raws := s.enc.raws[:0]
	prev := 0
	for _, e := range ends {
		raws = append(raws, bson.Raw(buf[prev:e]))
		prev = e
	}
	s.enc.raws = raws
	_, err := c.InsertMany(ctx, raws, unordered)
	clear(raws) // the documents are the caller's; do not keep them reachable
	return s.writeFailures(res, err)
}

// writeFailures moves the per-document errors of a write into the result;
// what remains (a lost connection, a write concern error) is the error.
func (s *conn) writeFailures(res driver.BulkResult, err error) (driver.BulkResult, error) {
	if err == nil {
		return res, nil
	}
	add := func(we mongo.WriteError) {
		ie := driver.ItemError{Index: we.Index, Class: classifyCode(we.Code)}
		if len(res.Failed) < maxReasons {
			ie.Reason = s.c.cfg.secrets.Scrub(we.Message)
		}
		res.Failed = append(res.Failed, ie)
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) {
		for _, we := range bwe.WriteErrors {
			add(we.WriteError)
		}
		if bwe.WriteConcernError == nil && len(bwe.WriteErrors) > 0 {
			return res, nil
		}
		return res, s.c.cfg.secrets.ScrubErr(err)
	}
	var wex mongo.WriteException
	if errors.As(err, &wex) {
		for _, we := range wex.WriteErrors {
			add(we)
		}
		if wex.WriteConcernError == nil && len(wex.WriteErrors) > 0 {
			return res, nil
		}
	}
	return res, s.c.cfg.secrets.ScrubErr(err)
}

// setFields readies the FindOne options and projection for a field list,
// rebuilt only when it changes; nil fields (or none) read whole documents.
func (s *conn) setFields(fields []string) {
	all := len(fields) == 0
	if s.findOne != nil && all == s.projAll && slices.Equal(fields, s.projFields) {
		return
	}
	s.projAll = all
	s.projFields = slices.Clone(fields)
	s.findOne = options.FindOne()
	s.proj = nil
	if !all {
		s.proj = projection(fields)
		s.findOne.SetProjection(bson.Raw(s.proj))
	}
	clear(s.finds)
}

// Get implements driver.Document: FindOne by _id with a projection of the
// named fields (_id included, as MongoDB always includes it).
func (s *conn) Get(ctx context.Context, collection, id string, fields []string) (driver.Doc, bool, error) {
	s.setFields(fields)
	s.enc.filter = appendIDFilter(s.enc.filter[:0], id)
	raw, err := s.coll(collection).FindOne(ctx, bson.Raw(s.enc.filter), s.findOne).Raw()
	if err != nil {
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil, false, nil
		}
		return nil, false, s.c.cfg.secrets.ScrubErr(err)
	}
	doc, err := decodeDoc(raw)
	if err != nil {
		return nil, false, err
	}
	return doc, true, nil
}

// Update implements driver.Document: UpdateOne {_id: id} {$set: set}.
func (s *conn) Update(ctx context.Context, collection, id string, set driver.Doc) (bool, error) {
	if len(set) == 0 {
		// $set of nothing is an error on MongoDB; report only whether the
		// document exists, which is what the caller can learn from it.
		_, found, err := s.Get(ctx, collection, id, []string{"_id"})
		return found, err
	}
	var err error
	s.enc.filter = appendIDFilter(s.enc.filter[:0], id)
	if s.enc.update, err = appendSet(s.enc.update[:0], set); err != nil {
		return false, err
	}
	r, err := s.coll(collection).UpdateOne(ctx, bson.Raw(s.enc.filter), bson.Raw(s.enc.update))
	if err != nil {
		return false, s.c.cfg.secrets.ScrubErr(err)
	}
	return r.MatchedCount > 0, nil
}

// Scan implements driver.Document: Find {_id: {$gte: startID}} sorted by _id,
// limit n, in one batch of n, counting the documents without decoding them.
func (s *conn) Scan(ctx context.Context, collection, startID string, n int, fields []string) (int, error) {
	return s.scan(ctx, collection, startID, n, fields, nil)
}

// scan is Scan, handing each document to each when it is not nil (tests
// check the order).
func (s *conn) scan(ctx context.Context, collection, startID string, n int, fields []string, each func(bson.Raw)) (int, error) {
	if n <= 0 {
		// A limit of 0 means no limit to MongoDB.
		return 0, nil
	}
	s.setFields(fields)
	o, ok := s.finds[n]
	if !ok {
		o = options.Find().SetSort(byID).SetLimit(int64(n)).SetBatchSize(int32(min(n, math.MaxInt32)))
		if s.proj != nil {
			o.SetProjection(bson.Raw(s.proj))
		}
		if s.finds == nil {
			s.finds = map[int]findOpts{}
		}
		// Scan lengths are few (YCSB draws them from 1..maxscanlength);
		// the bound keeps a caller with arbitrary lengths from growing it.
		if len(s.finds) < 1024 {
			s.finds[n] = o
		}
	}
	s.enc.filter = appendFromFilter(s.enc.filter[:0], startID)
	cur, err := s.coll(collection).Find(ctx, bson.Raw(s.enc.filter), o)
	if err != nil {
		return 0, s.c.cfg.secrets.ScrubErr(err)
	}
	count := 0
	for count < n && cur.Next(ctx) {
		if each != nil {
			each(cur.Current)
		}
		count++
	}
	err = cur.Err()
	cerr := cur.Close(context.WithoutCancel(ctx))
	if err == nil {
		err = cerr
	}
	return count, s.c.cfg.secrets.ScrubErr(err)
}

// encoder holds a session's scratch buffers.
type encoder struct {
	buf    []byte
	ends   []int
	raws   []bson.Raw
	filter []byte
	update []byte
}
