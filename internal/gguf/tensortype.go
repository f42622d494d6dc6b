package gguf

import "fmt"

// TensorType is ggml's type of a tensor's elements.
type TensorType uint32

// The tensor types a trainer or importer asks about by name; the others
// print by ggml's name too.
const (
	TypeF32  TensorType = 0
	TypeF16  TensorType = 1
	TypeBF16 TensorType = 30
)

// tensorTypeNames are ggml's names (ggml.h's enum ggml_type); gaps are
// types ggml removed.
var tensorTypeNames = map[TensorType]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1",
	10: "Q2_K", 11: "Q3_K", 12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K",
	16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL", 21: "IQ3_S",
	22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64",
	29: "IQ1_M", 30: "BF16", 34: "TQ1_0", 35: "TQ2_0", 39: "MXFP4",
}

func (t TensorType) String() string {
	if s, ok := tensorTypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}
