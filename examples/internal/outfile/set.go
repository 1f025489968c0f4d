package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Set is a multi-file output: the files of one directory whose names a
// function claims (for an OTF trace "t": t.otf, t.0.def, t.1.events, ...).
// The files are created in a temporary directory ".LAST.tmp-XXXX" in
// that directory and moved into place by [Set.Commit]. Its methods are not safe for
// concurrent use.
//
// A set may hold directories of files, one level deep (an OTF2 archive
// "t": t.otf2, t.def and the directory t of t/0.evt, t/0.def, ...): a
// directory d belongs to the set when owned(d+"/") is true, and a file f
// in it when owned(d+"/"+f) is true. Such a directory is created and
// moved into place whole, and an existing one is the old output only if
// every file in it is one the set owns.
type Set struct {
	dir     string
	last    string
	owned   func(name string) bool
	tmp     string
	root    *os.Root
	created []string            // names, in order of creation
	dirs    []string            // directories created, in order of creation
	open    map[string]*os.File // created and not yet closed
	stale   []string            // owned files present before, not yet known to be replaced
	errs    map[string]error    // failed syncs and closes by name
	done    bool
}

// NewSet prepares a multi-file output in dir. owned reports whether a file
// name belongs to the output; last is the name moved into place after all
// the others (the file that makes the output look whole, such as an OTF
// master file), and must be owned.
//
// Files of dir that owned claims are the existing output: NewSet refuses
// them with [ErrExists] without [Options.Force], with [ErrInput] if one
// of them is an input file, and with [ErrNotRegular] if one is not a
// regular file. With Force, Commit replaces them, and removes those the
// new output does not contain, so that no file of the old output is taken
// for part of the new one.
func NewSet(dir, last string, owned func(name string) bool, opts *Options) (*Set, error) {
	if !owned(last) {
		return nil, fmt.Errorf("outfile: %s is not a name of the set", last)
	}
	stale, err := checkSet(dir, owned, opts)
	if err != nil {
		return nil, err
	}
	s := &Set{dir: dir, last: last, owned: owned, stale: stale, open: map[string]*os.File{}, errs: map[string]error{}}
	// Made and tracked under the lock of the signal handler, so that an
	// interrupt between the two cannot leave the directory behind.
	pending.Lock()
	s.tmp, err = os.MkdirTemp(dir, "."+last+".tmp-*")
	if err == nil {
		pending.paths[s.tmp] = true
	}
	pending.Unlock()
	if err != nil {
		return nil, err
	}
	if s.root, err = os.OpenRoot(s.tmp); err != nil {
		pending.Lock()
		defer pending.Unlock()
		untrack(s.tmp)
		os.Remove(s.tmp)
		return nil, err
	}
	return s, nil
}

// CheckSet returns the error NewSet would return for the existing files
// of dir (ErrExists, ErrInput, ErrNotRegular), without creating anything.
func CheckSet(dir string, owned func(name string) bool, opts *Options) error {
	_, err := checkSet(dir, owned, opts)
	return err
}

// checkSet applies the rules to the files of dir that owned claims and
// returns their names.
func checkSet(dir string, owned func(name string) bool, opts *Options) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && owned(e.Name()+"/") {
			if err := checkSubdir(dir, e.Name(), owned, opts); err != nil {
				return nil, err
			}
			names = append(names, e.Name()+"/")
			continue
		}
		if !owned(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(path); err == nil {
			if err := opts.checkInputs(path, fi); err != nil {
				return nil, err
			}
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: %w; it would be part of the output", path, ErrNotRegular)
		}
		if !opts.force() {
			return nil, fmt.Errorf("%s: %w", path, ErrExists)
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// checkSubdir applies the rules to the directory sub of dir: every entry
// must be a regular file the set owns, not an input, and the directory is
// only replaced with Force.
func checkSubdir(dir, sub string, owned func(name string) bool, opts *Options) error {
	path := filepath.Join(dir, sub)
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := filepath.Join(path, e.Name())
		if !owned(sub + "/" + e.Name()) {
			return fmt.Errorf("%s: %w: it holds %s, which is not part of the output", path, ErrNotRegular, e.Name())
		}
		if fi, err := os.Stat(p); err == nil {
			if err := opts.checkInputs(p, fi); err != nil {
				return err
			}
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: %w; it would be part of the output", p, ErrNotRegular)
		}
	}
	if !opts.force() {
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	return nil
}

// Create creates the file name of the set. The name must be one the set
// owns, without a directory or in one of the set's directories ("d/f"),
// and not created before. The file is synced to disk when it is closed.
func (s *Set) Create(name string) (io.WriteCloser, error) {
	if s.done {
		return nil, os.ErrClosed
	}
	d, base, nested := strings.Cut(name, "/")
	switch {
	case !s.owned(name),
		!nested && filepath.Base(name) != name,
		nested && (d == "" || d == "." || d == ".." || base == "" || strings.Contains(base, "/") || !s.owned(d+"/")):
		return nil, fmt.Errorf("outfile: %s is not a name of the set", name)
	}
	if slices.Contains(s.created, name) {
		return nil, fmt.Errorf("%s: %w", filepath.Join(s.dir, name), fs.ErrExist)
	}
	if nested && !slices.Contains(s.dirs, d) {
		if err := s.root.Mkdir(d, 0o777); err != nil {
			return nil, err
		}
		s.dirs = append(s.dirs, d)
	}
	f, err := s.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	s.created = append(s.created, name)
	s.open[name] = f
	return &setFile{f: f, s: s, name: name}, nil
}

type setFile struct {
	f    *os.File
	s    *Set
	name string
}

func (f *setFile) Write(p []byte) (int, error) { return f.f.Write(p) }

func (f *setFile) Close() error {
	if f.s.open[f.name] == nil {
		return os.ErrClosed
	}
	delete(f.s.open, f.name)
	err := f.f.Sync()
	if e := f.f.Close(); err == nil {
		err = e
	}
	if err != nil {
		f.s.errs[f.name] = err
	}
	return err
}

// Created returns the names of the files created so far.
func (s *Set) Created() []string { return slices.Clone(s.created) }

// Commit moves the set into place: it removes the existing last file
// (the old output no longer looks whole), then the existing files the new
// output does not contain, renames the new files over the old ones, the
// last one at the end, and removes the temporary directory. It fails,
// leaving the target directory untouched and removing the temporary
// directory, if a file is still open, a close or sync failed, or the last
// file was not created. A rename that fails half-way leaves the new files
// moved so far and no last file. A second Commit or Abort returns nil.
func (s *Set) Commit() error {
	if s.done {
		return nil
	}
	var err error
	switch {
	case len(s.open) > 0:
		err = fmt.Errorf("outfile: %d files of %s still open", len(s.open), filepath.Join(s.dir, s.last))
	case len(s.errs) > 0:
		for _, n := range s.created {
			if e := s.errs[n]; e != nil {
				err = e
				break
			}
		}
	case !slices.Contains(s.created, s.last):
		err = fmt.Errorf("outfile: %s was not written", filepath.Join(s.dir, s.last))
	}
	if err != nil {
		s.Abort()
		return err
	}
	s.done = true
	pending.Lock()
	defer pending.Unlock()
	defer s.cleanup()
	if slices.Contains(s.stale, s.last) {
		if err := os.Remove(filepath.Join(s.dir, s.last)); err != nil {
			return err
		}
	}
	for _, n := range s.stale {
		if d, ok := strings.CutSuffix(n, "/"); ok {
			if err := removeSubdir(s.dir, d, s.owned); err != nil {
				return err
			}
			continue
		}
		if n != s.last && !slices.Contains(s.created, n) {
			if err := os.Remove(filepath.Join(s.dir, n)); err != nil {
				return err
			}
		}
	}
	for _, d := range s.dirs {
		if err := os.Rename(filepath.Join(s.tmp, d), filepath.Join(s.dir, d)); err != nil {
			return err
		}
		syncDir(filepath.Join(s.dir, d))
	}
	for _, n := range s.created {
		if n == s.last || strings.Contains(n, "/") {
			continue
		}
		if err := os.Rename(filepath.Join(s.tmp, n), filepath.Join(s.dir, n)); err != nil {
			return err
		}
	}
	if err := os.Rename(filepath.Join(s.tmp, s.last), filepath.Join(s.dir, s.last)); err != nil {
		return err
	}
	syncDir(s.dir)
	return nil
}

// removeSubdir removes the directory sub of dir, which holds only files
// the set owns (checkSubdir), file by file: a file that is not owned
// stays, and so does the directory.
func removeSubdir(dir, sub string, owned func(name string) bool) error {
	path := filepath.Join(dir, sub)
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if owned(sub + "/" + e.Name()) {
			if err := os.Remove(filepath.Join(path, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.Remove(path)
}

// Abort removes the temporary directory and the files created in it; the
// target directory is left as it was. Abort after Commit does nothing.
func (s *Set) Abort() error {
	if s.done {
		return nil
	}
	s.done = true
	pending.Lock()
	defer pending.Unlock()
	return s.cleanup()
}

// cleanup closes what is open and removes the files the set created and
// its temporary directory, nothing else.
func (s *Set) cleanup() error {
	var errs []error
	for _, f := range s.open {
		f.Close()
	}
	clear(s.open)
	for _, n := range s.created {
		if err := s.root.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, d := range s.dirs {
		if err := s.root.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	errs = append(errs, s.root.Close(), os.Remove(s.tmp))
	untrack(s.tmp)
	return errors.Join(errs...)
}
