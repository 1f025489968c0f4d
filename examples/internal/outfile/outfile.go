// Package outfile writes the output files of the example programs so that
// a failure never destroys or half-writes a file.
//
// An output that is a regular file (or does not exist yet) is written to a
// temporary file beside it, named ".NAME.tmp-XXXX", and renamed into place
// only once the whole output is written, flushed, synced to disk and
// closed ([File.Commit]). A failure, or [File.Abort], removes the
// temporary file and nothing else: the target keeps its old content or
// stays absent. An existing regular file is replaced only with
// [Options.Force]; the new file keeps the replaced file's permission bits.
// The target's directory must be writable, for the temporary file.
//
// An output that exists and is not a regular file (a terminal, a pipe, a
// device such as /dev/null or /dev/full, or a link into /proc such as
// /dev/stdout) is written directly, appending, without a temporary file and
// without Force, and is never removed; a write error is returned as it is. A
// directory or a dangling symbolic link is refused. A symbolic link to a
// regular file is followed: the file it names is replaced, the link stays.
// A replaced file is a new file: other hard links to the old one keep the
// old content.
//
// An output is refused with [ErrInput] when it is one of the files the
// program reads ([Options.Inputs]), compared with [os.SameFile], so that a
// second name of the same file (a hard or symbolic link) is caught too.
//
// A [Set] does the same for the files of one multi-file output (an OTF
// trace: master file and record files): they are written into a temporary
// directory ".LAST.tmp-XXXX" in the target directory and moved into place
// together by [Set.Commit], the file named as the set's last one (the master file)
// after all the others.
//
// A program that calls [CleanUpOnSignal] at its start has the temporary
// files and directories of its unfinished outputs removed when it is
// interrupted (SIGINT, SIGTERM, SIGHUP).
//
// The package is plumbing for the programs under examples/; it is not part
// of the SDK's API.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrExists reports an output that exists and would be replaced without
// [Options.Force].
var ErrExists = errors.New("output exists (give -force to replace it)")

// ErrInput reports an output that is, or would overwrite, one of the
// program's input files.
var ErrInput = errors.New("output is one of the input files")

// ErrNotRegular reports a path the package will neither write through a
// temporary file nor remove: a directory, a dangling symbolic link, or a
// file of a multi-file output that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Options configures [Create], [Write] and [NewSet]. A nil value means no
// Force and no inputs.
type Options struct {
	// Force allows replacing existing regular files.
	Force bool
	// Inputs are the files the program reads. An output that is one of
	// them, under any name, is refused with ErrInput. Inputs that do not
	// exist are ignored.
	Inputs []string
}

func (o *Options) force() bool { return o != nil && o.Force }

// checkInputs returns ErrInput if the existing file with info fi is one
// of the inputs.
func (o *Options) checkInputs(path string, fi fs.FileInfo) error {
	if o == nil {
		return nil
	}
	for _, in := range o.Inputs {
		ii, err := os.Stat(in)
		if err != nil {
			continue
		}
		if os.SameFile(fi, ii) {
			if filepath.Clean(in) == filepath.Clean(path) {
				return fmt.Errorf("%s: %w", path, ErrInput)
			}
			return fmt.Errorf("%s: %w (%s)", path, ErrInput, in)
		}
	}
	return nil
}

// A File is one output being written. Its methods are not safe for
// concurrent use.
type File struct {
	path   string   // the target as given
	target string   // the file replaced by Commit (path with links resolved)
	tmp    string   // the temporary file; "" when writing directly
	f      *os.File // open until Commit or Abort
	err    error    // first write error
	done   bool
}

// Create prepares path for writing. See the package documentation for
// what it refuses and when it writes directly.
func Create(path string, opts *Options) (*File, error) {
	target, direct, perm, err := check(path, opts)
	if err != nil {
		return nil, err
	}
	if direct {
		// O_APPEND: /dev/stdout may be a file the shell opened with >>.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		return &File{path: path, target: path, f: f}, nil
	}
	f, tmp, err := createTemp(filepath.Dir(target), filepath.Base(target), perm)
	if err != nil {
		return nil, err
	}
	return &File{path: path, target: target, tmp: tmp, f: f}, nil
}

// Check returns the error Create would return for path on the rules
// above (ErrExists, ErrInput, ErrNotRegular), without creating anything.
func Check(path string, opts *Options) error {
	_, _, _, err := check(path, opts)
	return err
}

// check applies the rules to path: it returns the file a temporary file
// replaces and the permission bits of the new file, or direct.
func check(path string, opts *Options) (target string, direct bool, perm fs.FileMode, err error) {
	target, direct, err = resolve(path)
	if err != nil {
		return "", false, 0, err
	}
	if direct {
		// Through /proc, /dev/stdout can be an input file the shell opened.
		if fi, err := os.Stat(path); err == nil {
			if err := opts.checkInputs(path, fi); err != nil {
				return "", false, 0, err
			}
		}
		return target, true, 0, nil
	}
	perm = 0o666
	if fi, err := os.Stat(target); err == nil {
		if err := opts.checkInputs(path, fi); err != nil {
			return "", false, 0, err
		}
		if !opts.force() {
			return "", false, 0, fmt.Errorf("%s: %w", path, ErrExists)
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false, 0, err
	}
	return target, false, perm, nil
}

// resolve follows the symbolic links of path. It reports direct for an
// existing file that is not regular or a link into /proc (such as
// /dev/stdout), and otherwise returns the regular file (or the absent
// name) that a temporary file replaces.
func resolve(path string) (target string, direct bool, err error) {
	target = path
	for range 40 {
		fi, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			if target != path {
				return "", false, fmt.Errorf("%s: dangling symbolic link to %s: %w", path, target, ErrNotRegular)
			}
			return target, false, nil
		}
		if err != nil {
			return "", false, err
		}
		switch m := fi.Mode(); {
		case m.IsRegular():
			return target, false, nil
		case m.IsDir():
			return "", false, fmt.Errorf("%s: is a directory: %w", path, ErrNotRegular)
		case m&fs.ModeSymlink == 0:
			return path, true, nil // a device, pipe, socket or terminal
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		if link == "/proc" || strings.HasPrefix(link, "/proc/") {
			return path, true, nil // /dev/stdout, /dev/fd/N: an open descriptor
		}
		target = link
	}
	return "", false, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// createTemp creates a new file ".base.tmp-XXXX" in dir with perm (less
// the umask, as os.Create does).
func createTemp(dir, base string, perm fs.FileMode) (*os.File, string, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		// Created and tracked under the lock of the signal handler, so
		// that an interrupt between the two cannot leave the file behind.
		pending.Lock()
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			pending.paths[name] = true
		}
		pending.Unlock()
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, name, nil
	}
	return nil, "", fmt.Errorf("%s: cannot find an unused temporary name", filepath.Join(dir, base))
}

// Name returns the output's path as given to Create.
func (f *File) Name() string { return f.path }

// Direct reports whether the output is written directly (it is not a
// regular file), without a temporary file.
func (f *File) Direct() bool { return f.tmp == "" }

// Write writes to the output. The first error is kept and returned by
// Commit too.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.done {
		return 0, os.ErrClosed
	}
	n, err := f.f.Write(p)
	if err != nil {
		f.err = fmt.Errorf("%s: %w", f.path, err)
		return n, f.err
	}
	return n, nil
}

// Commit ends the output: for a regular file it syncs and closes the
// temporary file and renames it over the target; for a direct output it
// closes it. If anything fails (or a Write failed before), the temporary
// file is removed and the error returned. A second Commit or Abort
// returns nil.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.err
	if err == nil && f.tmp != "" {
		if e := f.f.Sync(); e != nil {
			err = fmt.Errorf("%s: %w", f.path, e)
		}
	}
	if e := f.f.Close(); e != nil && err == nil {
		err = fmt.Errorf("%s: %w", f.path, e)
	}
	if f.tmp == "" {
		return err
	}
	pending.Lock()
	defer pending.Unlock()
	untrack(f.tmp)
	if err == nil {
		if e := os.Rename(f.tmp, f.target); e != nil {
			err = e
		}
	}
	if err != nil {
		os.Remove(f.tmp)
		return err
	}
	syncDir(filepath.Dir(f.target))
	return nil
}

// Abort abandons the output: it closes it and removes the temporary file;
// the target is left as it was. A direct output is only closed. Abort
// after Commit does nothing.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.f.Close()
	if f.tmp != "" {
		pending.Lock()
		defer pending.Unlock()
		untrack(f.tmp)
		if e := os.Remove(f.tmp); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// Write creates path with [Create], lets write fill it through a 64 KiB
// buffer, and commits it if write and the flush succeed; otherwise it
// aborts it and returns the first error.
func Write(path string, opts *Options, write func(w io.Writer) error) error {
	f, err := Create(path, opts)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// syncDir makes a rename in dir durable where the system allows it; it
// is best effort (some file systems refuse to sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// An ErrWriter passes writes to W and keeps the first error in Err: after
// it, every Write fails with it at once. A program writing many records
// to standard output checks Err once per record instead of every
// formatted write, and stops at a full disk or a closed pipe.
type ErrWriter struct {
	W   io.Writer
	Err error
}

// Write writes p to W unless an earlier Write failed.
func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	if err != nil {
		e.Err = err
	}
	return n, err
}
