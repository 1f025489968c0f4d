package outfile

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hpctrace/hpctrace/dumpi"
)

// TraceFiles returns the files a program reads when it reads the trace
// named by path, for [Options.Inputs]: path itself and, for an OTF2
// anchor file (a name ending in ".otf2") every file of its archive
// ([OTF2Owned]), for an OTF master file (".otf") every file of its trace
// ([OTFOwned]), for a DUMPI run's ".meta" file every rank file it names.
// Files are found by name in path's directory; a directory
// that cannot be read adds nothing.
func TraceFiles(path string) []string {
	files := []string{path}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var owned func(string) bool
	var subdir string
	switch {
	case strings.HasSuffix(base, ".otf2"):
		subdir = strings.TrimSuffix(base, ".otf2")
		owned = OTF2Owned(subdir)
	case strings.HasSuffix(base, ".otf"):
		owned = OTFOwned(strings.TrimSuffix(base, ".otf"))
	case strings.HasSuffix(base, ".meta"):
		return append(files, dumpiRankFiles(path)...)
	default:
		return files
	}
	subs := []string{""}
	if subdir != "" {
		subs = append(subs, subdir)
	}
	for _, sub := range subs {
		ents, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range ents {
			name := e.Name()
			if sub != "" {
				name = sub + "/" + name
			}
			if !e.IsDir() && name != base && owned(name) {
				files = append(files, filepath.Join(dir, filepath.FromSlash(name)))
			}
		}
	}
	return files
}

// OTF2Owned reports the names of the files of the OTF2 archive name
// (relative to the anchor's directory, with "/"): its anchor, global
// definitions, markers and thumbnails, and the directory name with the
// locations' event, definition and snapshot files (decimal location ids).
func OTF2Owned(name string) func(string) bool {
	return func(f string) bool {
		if rest, ok := strings.CutPrefix(f, name+"/"); ok {
			if rest == "" {
				return true
			}
			id, ext, ok := strings.Cut(rest, ".")
			return ok && id != "" && strings.Trim(id, "0123456789") == "" && (ext == "evt" || ext == "def" || ext == "snap")
		}
		rest, ok := strings.CutPrefix(f, name+".")
		if !ok {
			return false
		}
		switch rest {
		case "otf2", "def", "marker":
			return true
		}
		n, ok := strings.CutSuffix(rest, ".thumb")
		return ok && n != "" && strings.Trim(n, "0123456789") == ""
	}
}

// OTFOwned reports the names of the files of the OTF trace stub: its
// master file, thumbnail and record files (stub.ID.def, .events, .snaps,
// .stats, .marker, each optionally .z; ID in hex).
func OTFOwned(stub string) func(name string) bool {
	return func(name string) bool {
		rest, ok := strings.CutPrefix(name, stub+".")
		if !ok {
			return false
		}
		if rest == "otf" || rest == "thumb" {
			return true
		}
		id, typ, ok := strings.Cut(strings.TrimSuffix(rest, ".z"), ".")
		if !ok || id == "" || strings.Trim(id, "0123456789abcdefABCDEF") != "" {
			return false
		}
		switch typ {
		case "def", "events", "snaps", "stats", "marker":
			return true
		}
		return false
	}
}

// dumpiRankFiles returns the rank files named by the DUMPI .meta file
// path, none if it cannot be read.
func dumpiRankFiles(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	m, err := dumpi.ParseMeta(f)
	if err != nil {
		return nil
	}
	var files []string
	for rank := range min(m.NumProcs, 1<<20) {
		files = append(files, filepath.Join(filepath.Dir(path), m.RankFile(rank)))
	}
	return files
}
