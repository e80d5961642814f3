package ycsb

import "strconv"

// FNV-1a 64 parameters as YCSB's Utils writes them.
const (
	fnvOffsetBasis64 = 0xCBF29CE484222325
	fnvPrime64       = 1099511628211
)

// fnvHash64 is YCSB's Utils.fnvhash64: FNV-1a 64 over the 8 bytes of val,
// least significant byte first (val shifted right arithmetically), and the
// result made non-negative with Math.abs — which leaves math.MinInt64 as it
// is, so the result can, once in 2^64, be negative, as in YCSB.
func fnvHash64(val int64) int64 {
	var h uint64 = fnvOffsetBasis64
	for i := 0; i < 8; i++ {
		octet := uint64(val & 0xff)
		val >>= 8
		h ^= octet
		h *= fnvPrime64
	}
	v := int64(h)
	if v < 0 {
		v = -v // -MinInt64 == MinInt64, as Java's Math.abs
	}
	return v
}

// keyPrefix is the prefix of every YCSB key.
const keyPrefix = "user"

// buildKeyName is CoreWorkload.buildKeyName: the key number, FNV-hashed
// unless ordered (insertorder=ordered), in decimal, left-padded with zeros to
// zeropadding digits, after "user".
func buildKeyName(keynum int64, zeropadding int, ordered bool) string {
	if !ordered {
		keynum = fnvHash64(keynum)
	}
	v := strconv.FormatInt(keynum, 10)
	b := make([]byte, 0, len(keyPrefix)+max(zeropadding, len(v)))
	b = append(b, keyPrefix...)
	for i := len(v); i < zeropadding; i++ {
		b = append(b, '0')
	}
	return string(append(b, v...))
}
