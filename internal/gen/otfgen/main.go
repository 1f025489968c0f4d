// Command otfgen generates otf/records_gen.go from otf/records.tsv with
// package otfrecords.
//
// Usage (from the otf directory, through go generate):
//
//	go run ../internal/gen/otfgen -dir .
//
// The output depends only on the table, so running it twice gives the
// same bytes.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/hpctrace/hpctrace/internal/gen/otfrecords"
)

func main() {
	dir := flag.String("dir", ".", "directory holding records.tsv; the output goes there too")
	flag.Parse()
	files, err := otfrecords.Generate(os.DirFS(*dir))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(*dir, f.Name), f.Data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
