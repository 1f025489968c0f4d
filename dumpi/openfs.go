package dumpi

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
)

// OpenFS opens the rank file name of fsys with NewFile, as Open does for an
// operating-system path; errors name the file. The file must implement
// io.ReaderAt, as the files of os.DirFS, embed.FS and fstest.MapFS do.
// Close closes it.
func OpenFS(fsys fs.FS, name string) (*File, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		f.Close()
		return nil, &fs.PathError{Op: "dumpi.OpenFS", Path: name, Err: errors.New("file does not implement io.ReaderAt")}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	df, err := newFile(ra, st.Size(), name)
	if err != nil {
		f.Close()
		return nil, err
	}
	df.closer = f
	return df, nil
}

// OpenRunFS reads the .meta file metafile of fsys and opens every rank's
// file beside it with OpenFS, as OpenRun does for an operating-system
// path; a fileprefix that leaves the metafile's directory is refused with
// an error wrapping ErrRange.
func OpenRunFS(fsys fs.FS, metafile string) (*Run, error) {
	mf, err := fsys.Open(metafile)
	if err != nil {
		return nil, err
	}
	m, err := ParseMeta(mf)
	mf.Close()
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Path = metafile
		}
		return nil, err
	}
	if m.NumProcs > 1<<20 {
		return nil, &ParseError{Path: metafile, Err: fmt.Errorf("%w: numprocs %d", ErrRange, m.NumProcs)}
	}
	if !filepath.IsLocal(m.FilePrefix) {
		return nil, &ParseError{Path: metafile,
			Err: fmt.Errorf("%w: fileprefix %q leaves the metafile's directory", ErrRange, m.FilePrefix)}
	}
	run := &Run{Meta: m}
	dir := path.Dir(metafile)
	for rank := range m.NumProcs {
		f, err := OpenFS(fsys, path.Join(dir, m.RankFile(rank)))
		if err != nil {
			run.Close()
			var pe *ParseError
			if errors.As(err, &pe) {
				return nil, err // the rank file's own positioned error
			}
			return nil, &ParseError{Path: metafile,
				Err: fmt.Errorf("fileprefix %q: rank %d of %d: %w", m.FilePrefix, rank, m.NumProcs, err)}
		}
		run.Files = append(run.Files, f)
	}
	return run, nil
}
