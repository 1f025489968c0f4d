// Command dumpigen generates the DUMPI call and constant code of package
// dumpi from the package's tables calls.tsv, constants.tsv and ascii.tsv.
//
// Usage (from the dumpi directory, through go generate):
//
//	go run ../internal/gen/dumpigen -dir .
//
// It writes calls_gen.go, calls_ref_gen_test.go (the reference decoders
// the tests compare with the generated ones) and constants_gen.go. The
// output depends only on the tables, so running it twice gives the same
// bytes.
package main

import (
	"flag"
	"fmt"
	"github.com/hpctrace/hpctrace/internal/gen/dumpicalls"
	"log"
	"os"
	"path/filepath"
)

func main() {
	dir := flag.String("dir", ".", "directory holding calls.tsv, constants.tsv and ascii.tsv; the output goes there too")
	flag.Parse()
	files, err := dumpicalls.Generate(os.DirFS(*dir))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(*dir, f.Name), f.Data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Fprintf(os.Stderr, "dumpigen: wrote %d files\n", len(files))
}
