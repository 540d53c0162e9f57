package hnsw

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDotMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 300; n++ {
		a, b := make([]float32, n), make([]float32, n+3)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		for name, got := range map[string]float32{"dot": dot(a, b), "generic": dotGeneric(a, b)} {
			if math.Abs(float64(got)-want) > 1e-4*math.Max(1, math.Sqrt(float64(n))) {
				t.Fatalf("n=%d %s = %v, want %v", n, name, got, want)
			}
		}
	}
}

func BenchmarkDot256(b *testing.B) {
	x, y := make([]float32, 256), make([]float32, 256)
	for i := range x {
		x[i], y[i] = float32(i), float32(256-i)
	}
	b.ReportAllocs()
	var s float32
	for b.Loop() {
		s += dot(x, y)
	}
	_ = s
}

func BenchmarkDotGeneric256(b *testing.B) {
	x, y := make([]float32, 256), make([]float32, 256)
	for i := range x {
		x[i], y[i] = float32(i), float32(256-i)
	}
	b.ReportAllocs()
	var s float32
	for b.Loop() {
		s += dotGeneric(x, y)
	}
	_ = s
}
