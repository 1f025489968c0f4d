package hpctrace

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDetect: detection never panics, whatever the name and first bytes,
// and content that names a format wins over any name.
func FuzzDetect(f *testing.F) {
	for _, name := range []string{"picl/testdata/appendix_a.trf", "otf/testdata/ring_zlib_blocks/ring.otf",
		"eventjson/testdata/fig12.json", "dumpi/testdata/minimal/dumpi-2026.11.22.01.38.03.meta",
		"dumpi/testdata/minimal/dumpi-2026.11.22.01.38.03-0000.bin", "otf2/testdata/minimal/trace/traces.otf2",
		"chrome/testdata/ring4.json", "chrome/testdata/foreign.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(name), data[:min(len(data), headSize)])
	}
	f.Add("x.json", []byte("{\n"))
	f.Add("", []byte("1:\n"))
	f.Fuzz(func(t *testing.T, name string, head []byte) {
		head = head[:min(len(head), headSize)]
		got := detect(name, head)
		if c := detectContent(head); c != FormatUnknown && got != c {
			t.Errorf("detect(%q) = %v, but the content says %v", name, got, c)
		}
		_ = got.String()
	})
}
