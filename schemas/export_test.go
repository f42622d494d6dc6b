package schemas

// DecodeStrict is decodeStrict for the benchmarks of schemas_test, which
// compare it with DecodeRecord.
var DecodeStrict = decodeStrict
