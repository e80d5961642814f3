// Package embedkv is the engine-independent half of fairbench's embedded
// key-value targets (bbolt, pebble): the Redis command semantics they answer
// with (GET, SET, INCR, DEL, their arity errors and error replies, INCR's
// integers) and the parsing of their URLs' options. Each driver keeps only
// what its engine does differently; what both do the same way lives here
// once, so that the two cannot drift apart.
package embedkv
