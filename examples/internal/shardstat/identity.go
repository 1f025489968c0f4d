package shardstat

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/model"
)

// An ID identifies a trace by its content, the same for every shard of
// it and whatever its path: see [Identity]. The zero ID is that of no
// trace (a state of version 1).
type ID [sha256.Size]byte

// identitySample is the length of the start and of the end of each file
// of the trace that Identity hashes.
const identitySample = 4 << 10

// Identity returns the identity of the trace name whose definitions, as
// opening it read them before any event, are defs: the SHA-256 of those
// definitions (time base, locations, regions, sites, communicators,
// counters, subsets, recorded statistics) and, for each file of the trace
// (outfile.TraceFiles: every file of an OTF or OTF2 trace or DUMPI run)
// in the order of their names relative to the named file's (its
// directory and the name without its extension), that name, the file's
// size and its first and last 64 KiB. So two traces of
// identical definitions (two runs of one program) differ unless their
// files agree in size, start and end; a copy of a trace elsewhere keeps
// its identity. A file that cannot be read is an error; a trace of no
// file (a generated one) is identified by its definitions alone. It reads
// at most 8 KiB of each file, so that a shard of an archive of many
// locations does not read much of the others' files.
func Identity(name string, defs *model.Defs) (ID, error) {
	h := sha256.New()
	h.Write([]byte("hpctrace-trace-identity\x00"))
	for _, v := range []any{defs.TimeBase, defs.Locations(), defs.Regions(), defs.Sites(), defs.Comms(), defs.Counters(), defs.Subsets(), defs.Recorded} {
		b, err := json.Marshal(v)
		if err != nil {
			return ID{}, err
		}
		writeField(h, b)
	}
	if _, err := os.Stat(name); err == nil {
		files := outfile.TraceFiles(name)
		dir := filepath.Dir(name)
		stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		rel := make([]string, len(files))
		for i, f := range files {
			r, err := filepath.Rel(dir, f)
			if err != nil {
				r = filepath.Base(f)
			}
			// "traces.otf2" → ".otf2", "traces/0.evt" → "/0.evt"
			rel[i] = strings.TrimPrefix(filepath.ToSlash(r), stem)
		}
		order := make([]int, len(files))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(x, y int) int { return cmp.Compare(rel[x], rel[y]) })
		for _, i := range order {
			if err := hashFile(h, rel[i], files[i]); err != nil {
				return ID{}, err
			}
		}
	}
	var id ID
	h.Sum(id[:0])
	return id, nil
}

// writeField writes b to h after its length, so that fields cannot run
// into one another.
func writeField(h io.Writer, b []byte) {
	h.Write(binary.AppendUvarint(nil, uint64(len(b))))
	h.Write(b)
}

// hashFile writes the name, size, start and end of the file path to h.
func hashFile(h io.Writer, rel, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	writeField(h, []byte(rel))
	size := fi.Size()
	writeField(h, binary.AppendVarint(nil, size))
	if !fi.Mode().IsRegular() {
		return nil
	}
	buf := make([]byte, min(size, identitySample))
	if _, err := io.ReadFull(f, buf); err != nil {
		return err
	}
	writeField(h, buf)
	if size > identitySample {
		buf = buf[:min(size-identitySample, identitySample)]
		if _, err := f.ReadAt(buf, size-int64(len(buf))); err != nil {
			return err
		}
		writeField(h, buf)
	}
	return nil
}
