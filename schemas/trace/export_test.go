package trace

// DecodeRecord and DecodeStrict are decodeRecord and decodeStrict for the
// benchmarks of trace_test, which compare the two (trace_test can import
// corpus to generate the lines; package trace cannot).
var (
	DecodeRecord = decodeRecord
	DecodeStrict = decodeStrict
)
