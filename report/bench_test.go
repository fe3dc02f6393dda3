package report

import (
	"io"
	"testing"
)

func BenchmarkWriteHTML(b *testing.B) {
	d := fullSearch()
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteHTML(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkText(b *testing.B) {
	d := fullSearch()
	b.ReportAllocs()
	for b.Loop() {
		if err := Text(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBoundaryPNG(b *testing.B) {
	d := fullSearch()
	b.ReportAllocs()
	for b.Loop() {
		if err := BoundaryPNG(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
}
