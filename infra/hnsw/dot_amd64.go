package hnsw

import "golang.org/x/sys/cpu"

// useAVX2 is fixed at start-up by the CPU's features (AVX2 and FMA, with
// the OS saving the YMM registers, which x/sys/cpu checks).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

// dot is the inner product of a and b[:len(a)].
func dot(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		_ = b[len(a)-1]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}
