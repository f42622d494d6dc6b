package dedupe

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSignatureKernelsMatchGeneric holds every assembly kernel this
// processor can run to signatureGeneric, not only the one Signature picks
// (on a processor with AVX-512, the AVX2 kernel is tested too).
func TestSignatureKernelsMatchGeneric(t *testing.T) {
	kernels := map[string]kernel{}
	if haveSignatureAVX512 {
		kernels["AVX-512"] = kernelAVX512
	}
	if haveSignatureAVX2 {
		kernels["AVX2"] = kernelAVX2
	}
	if len(kernels) == 0 {
		t.Skip("this processor has neither AVX2 nor AVX-512: Signature is signatureGeneric")
	}
	// Every size to 200, and sizes about signatureWith's chunks.
	var sizes []int
	for n := range 200 {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, premixChunk-1, premixChunk, premixChunk+1, 3*premixChunk+7)
	r := rand.New(rand.NewPCG(3, 5))
	for name, k := range kernels {
		for _, n := range sizes {
			set := make([]uint64, n)
			for i := range set {
				set[i] = r.Uint64() >> (r.IntN(4) * 21) // small values too
			}
			var want, got [numPerm]uint64
			signatureGeneric(set, &want)
			signatureWith(k, set, &got)
			if got != want {
				t.Fatalf("%s, %d shingles: the signature differs from signatureGeneric's", name, n)
			}
		}
	}
}

// TestSignatureKernelFollowsCPU checks that Signature takes the fastest
// kernel the processor reports in /proc/cpuinfo: a machine whose flags
// list avx512f and avx512dq must run the AVX-512 kernel, one with avx2 at
// least the AVX2 one.
func TestSignatureKernelFollowsCPU(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo to compare with: %v", err)
	}
	var flags []string
	for line := range strings.Lines(string(info)) {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = strings.Fields(value)
			break
		}
	}
	kernel := signatureKernel()
	t.Logf("Signature runs %s", kernel)
	switch {
	case slices.Contains(flags, "avx512f") && slices.Contains(flags, "avx512dq"):
		if !haveSignatureAVX512 {
			t.Errorf("/proc/cpuinfo lists avx512f and avx512dq, but Signature runs %s", kernel)
		}
	case slices.Contains(flags, "avx2"):
		if !haveSignatureAVX2 {
			t.Errorf("/proc/cpuinfo lists avx2, but Signature runs %s", kernel)
		}
	}
}

// BenchmarkSignatureKernels times every kernel this processor can run
// over a turn's worth of shingles (about a hundred), per shingle.
func BenchmarkSignatureKernels(b *testing.B) {
	kernels := []struct {
		name string
		have bool
		run  func([]uint64, *[numPerm]uint64)
	}{
		{"AVX-512", haveSignatureAVX512, func(s []uint64, sig *[numPerm]uint64) { signatureWith(kernelAVX512, s, sig) }},
		{"AVX2", haveSignatureAVX2, func(s []uint64, sig *[numPerm]uint64) { signatureWith(kernelAVX2, s, sig) }},
		{"Go", true, signatureGeneric},
	}
	r := rand.New(rand.NewPCG(3, 5))
	set := make([]uint64, 100)
	for i := range set {
		set[i] = r.Uint64()
	}
	for _, k := range kernels {
		if !k.have {
			continue
		}
		b.Run(k.name, func(b *testing.B) {
			var sig [numPerm]uint64
			for b.Loop() {
				k.run(set, &sig)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set)), "ns/shingle")
		})
	}
}
