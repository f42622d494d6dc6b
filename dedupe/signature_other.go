//go:build !amd64

package dedupe

func signature(shingles []uint64, sig *[numPerm]uint64) { signatureGeneric(shingles, sig) }

// signatureKernel names the code Signature runs here.
func signatureKernel() string { return "Go" }
