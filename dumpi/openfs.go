package dumpi

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
)

// OpenFS opens the rank file name of fsys with NewFile, as Open does for
// an operating-system path; errors name the file. The file must implement
// io.ReaderAt, as the files of os.DirFS, embed.FS and fstest.MapFS do.
// The File owns the file it opened: Close closes it.
func OpenFS(fsys fs.FS, name string, opts *OpenOptions) (*File, error) {
	maxRecord, err := opts.maxRecord()
	if err != nil {
		return nil, err
	}
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
	df.maxRecord = maxRecord
	return df, nil
}

// OpenRunFS reads the .meta file metafile of fsys and opens every rank's
// file beside it with OpenFS, as OpenRun does for an operating-system
// path. A fileprefix that leaves the metafile's directory is refused with
// an error wrapping ErrRange unless opts.AllowOutside is set (and then
// fsys must accept such a name). The Run owns the files it opened:
// Close closes them.
func OpenRunFS(fsys fs.FS, metafile string, opts *RunOptions) (*Run, error) {
	return openRun(metafile, opts, fsys.Open, path.Dir, path.Join, func(name string, o *OpenOptions) (*File, error) {
		return OpenFS(fsys, name, o)
	})
}

// openRun opens a run through open (the metafile), dir and join (file
// names) and openFile (the rank files).
func openRun(metafile string, opts *RunOptions, open func(string) (fs.File, error), dir func(string) string, join func(...string) string,
	openFile func(string, *OpenOptions) (*File, error)) (*Run, error) {
	var o RunOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxRecord < 0 {
		return nil, fmt.Errorf("dumpi: negative MaxRecord %d", o.MaxRecord)
	}
	mf, err := open(metafile)
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
	if !o.AllowOutside && !filepath.IsLocal(m.FilePrefix) {
		return nil, &ParseError{Path: metafile,
			Err: fmt.Errorf("%w: fileprefix %q leaves the metafile's directory (RunOptions.AllowOutside permits it)", ErrRange, m.FilePrefix)}
	}
	run := &Run{Meta: m, owned: true}
	d := dir(metafile)
	for rank := range m.NumProcs {
		name := m.RankFile(rank)
		if !filepath.IsAbs(name) {
			name = join(d, name)
		}
		f, err := openFile(name, &OpenOptions{MaxRecord: o.MaxRecord})
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
