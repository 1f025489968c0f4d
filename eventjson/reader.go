package eventjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hpctrace/hpctrace/model"
)

// Format is the value of the "format" key of a document: the form's
// identifier, which the Writer writes and the Reader requires. Its name
// is historical ("trace events" meaning the model's events); it is not
// Chrome's Trace Event Format.
const Format = "trace-events-json/1"

// ReaderOptions configures a Reader. A nil or zero value means defaults.
type ReaderOptions struct {
	Path string // used only in error messages

	// MaxString bounds the length in bytes of a string anywhere in the
	// document, decoded, and of a number or literal outside the events
	// array (which encoding/json holds in memory; the event scanner keeps
	// no digits). Longer ones stop the reader with an error wrapping
	// ErrLimit. 0 means 1 MiB; a negative value means no limit.
	MaxString int

	// Selection chooses the events the Reader yields: those of a read of
	// the whole document that Selection.Keep accepts, in the same order
	// and with the same values (see [model.Selection] and
	// [model.Window]). The Reader is the format's model source, so the
	// selection is an option of the Reader rather than of a separate
	// adapter. The whole document is read whatever the selection: it has
	// no index, and its events need not be in time order. The
	// definitions are the whole document's.
	Selection model.Selection

	// MaxOpenRegions bounds the regions open at once on one location (enters
	// not yet left), which a consumer such as a statistics accumulator
	// keeps in memory (tens of bytes each). More stop the reader with an
	// error wrapping ErrLimit. 0 means 1<<20; a negative value means no
	// limit.
	MaxOpenRegions int
}

// Defaults of ReaderOptions.
const (
	defaultMaxString      = 1 << 20
	defaultMaxOpenRegions = 1 << 20
)

// A Reader reads a document as a [model.Source]: its definitions, and its
// events in document order. It is a streaming reader. The header and
// whatever follows the events array are decoded with encoding/json; the
// events are read by a small scanner that allocates nothing per event in
// the steady state (new definitions and new marker texts allocate once).
// Keys match case-insensitively (ASCII), unknown keys are skipped, and
// null means absent, as with encoding/json. Unlike encoding/json, a key repeated in the
// document object, a definition object or (among the known keys) an event
// object is a syntax error, not a value that silently replaces the first.
//
// Limits: ReaderOptions.MaxString bounds every string (1 MiB by
// default) and MaxOpenRegions the regions open at once on a location (1<<20 by
// default); beyond them the reader stops with an error wrapping ErrLimit.
// Memory is otherwise proportional to the definitions, the locations and
// the longest event.
//
// A Reader from [Open] or [OpenFS] owns its file, which Close closes; a
// Reader from [NewReader] closes nothing.
type Reader struct {
	path   string
	closer io.Closer     // the file Open or OpenFS opened, until Close
	dec    *json.Decoder // the header, and what follows the events
	br     *bufio.Reader // the events array, read by the scanner of scan.go
	off    int64         // offset of br's next byte in the document
	sbuf   []byte        // the decoded strings of the current event
	defs   model.Defs
	ev     model.Event
	raw    jsonEvent
	n      int64
	err    error
	inArr  bool
	done   bool
	byName map[string]model.RegionID

	maxString int     // MaxString; math.MaxInt for no limit
	maxDepth  int32   // MaxOpenRegions; math.MaxInt32 for no limit
	depth     []int32 // open regions per location
	lim       *strLimiter
	top       map[string]bool // keys of the document object seen

	sel    model.Selection // ReaderOptions.Selection
	filter bool            // sel selects less than everything
}

type jsonLocation struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	NameBytes []byte `json:"name_bytes"`
	Process   int32  `json:"process"`
	Thread    int32  `json:"thread"`
	Host      bool   `json:"host,omitempty"`
	MPI       bool   `json:"mpi,omitempty"`
	Stream    *int64 `json:"stream,omitempty"` // the id of the location whose stream holds this one's events
}

type jsonRegion struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	NameBytes  []byte `json:"name_bytes"`
	Kind       string `json:"kind"`
	Group      string `json:"group,omitempty"`
	GroupBytes []byte `json:"group_bytes"`
	File       string `json:"file,omitempty"`
	FileBytes  []byte `json:"file_bytes"`
	Line       int32  `json:"line"`
	Paradigm   string `json:"paradigm,omitempty"`
}

type jsonComm struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	NameBytes []byte  `json:"name_bytes"`
	Members   []int64 `json:"members"`
	Remote    []int64 `json:"remote"`
	Self      bool    `json:"self"`
}

type jsonCounter struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	NameBytes    []byte `json:"name_bytes"`
	Unit         string `json:"unit,omitempty"`
	UnitBytes    []byte `json:"unit_bytes"`
	Accumulating bool   `json:"accumulating,omitempty"`
	Float        bool   `json:"float,omitempty"`
}

// NewReader reads the document header up to the first event and returns
// a reader positioned before it. Definitions given before "events" are in
// Defs when NewReader returns.
func NewReader(r io.Reader, opts *ReaderOptions) (*Reader, error) {
	jr := &Reader{maxString: defaultMaxString, maxDepth: defaultMaxOpenRegions}
	if opts != nil {
		if err := opts.Selection.Check(); err != nil {
			return nil, fmt.Errorf("eventjson: NewReader: ReaderOptions.Selection: %w", err)
		}
		jr.sel = opts.Selection
		jr.filter = !jr.sel.IsZero()
		jr.path = opts.Path
		switch {
		case opts.MaxString < 0:
			jr.maxString = math.MaxInt
		case opts.MaxString > 0:
			jr.maxString = opts.MaxString
		}
		switch {
		case opts.MaxOpenRegions < 0 || opts.MaxOpenRegions > math.MaxInt32:
			jr.maxDepth = math.MaxInt32
		case opts.MaxOpenRegions > 0:
			jr.maxDepth = int32(opts.MaxOpenRegions)
		}
	}
	jr.lim = &strLimiter{r: r, max: jr.maxString}
	jr.dec = json.NewDecoder(jr.lim)
	jr.dec.UseNumber()
	if err := jr.expectDelim('{'); err != nil {
		return nil, jr.fail(-1, fmt.Errorf("%w: document is not an object", ErrFormat))
	}
	sawFormat := false
	for {
		if !jr.dec.More() {
			if err := jr.expectDelim('}'); err != nil {
				return nil, jr.fail(-1, err)
			}
			jr.done = true
			break
		}
		key, err := jr.key()
		if err != nil {
			return nil, jr.fail(-1, err)
		}
		if err := jr.topKey(key); err != nil {
			return nil, jr.fail(-1, err)
		}
		if key == "events" {
			if !sawFormat {
				return nil, jr.fail(-1, fmt.Errorf("%w: no \"format\" key before \"events\"", ErrFormat))
			}
			if err := jr.expectDelim('['); err != nil {
				return nil, jr.fail(-1, err)
			}
			jr.inArr = true
			jr.startEvents(r)
			break
		}
		if key == "format" {
			sawFormat = true
		}
		if err := jr.header(key); err != nil {
			return nil, jr.fail(-1, err)
		}
	}
	if !sawFormat {
		return nil, jr.fail(-1, fmt.Errorf("%w: no \"format\" key", ErrFormat))
	}
	return jr, nil
}

func (jr *Reader) fail(rec int64, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		err = fmt.Errorf("%w: truncated document", io.ErrUnexpectedEOF)
	case errors.As(err, &se), errors.As(err, &te):
		err = fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		jr.err = pe
		return pe
	}
	off := jr.off
	if jr.dec != nil {
		off += jr.dec.InputOffset()
	}
	jr.err = &ParseError{Path: jr.path, Offset: off, Record: rec, Err: err}
	return jr.err
}

func (jr *Reader) expectDelim(d json.Delim) error {
	tok, err := jr.dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("%w: want %q, got %v", ErrSyntax, d, tok)
	}
	return nil
}

func (jr *Reader) key() (string, error) {
	tok, err := jr.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("%w: want a key, got %v", ErrSyntax, tok)
	}
	return k, nil
}

func (jr *Reader) header(key string) error {
	switch key {
	case "format":
		var f string
		if err := jr.dec.Decode(&f); err != nil {
			return err
		}
		if f != Format {
			return fmt.Errorf("%w: format %q", ErrFormat, f)
		}
	case "ticks_per_second":
		var n json.Number
		if err := jr.dec.Decode(&n); err != nil {
			return err
		}
		v, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil {
			return fmt.Errorf("%w: ticks_per_second %s", ErrRange, n)
		}
		jr.defs.TimeBase.TicksPerSecond = v
	case "locations":
		return eachDef(jr, (*jsonLocation).setter, func(l *jsonLocation) error {
			if id, ok := jr.defs.LocationByNative(l.ID); ok {
				return fmt.Errorf("%w: location %d defined twice (id %d)", ErrSyntax, l.ID, id)
			}
			loc := model.Location{Native: l.ID, Name: rawOr(l.NameBytes, l.Name), Process: l.Process, Thread: l.Thread, Host: l.Host, MPI: l.MPI}
			next := model.LocID(jr.defs.NumLocations() + 1) // the id AddLocation gives
			if l.Stream != nil {
				if *l.Stream == l.ID {
					loc.Stream = next
				} else {
					st, ok := jr.defs.LocationByNative(*l.Stream)
					if !ok {
						return fmt.Errorf("%w: location %d: stream %d is neither the location nor one defined before it", ErrSyntax, l.ID, *l.Stream)
					}
					loc.Stream = st
				}
			}
			if id := jr.defs.AddLocation(loc); id != next {
				return fmt.Errorf("eventjson: location %d: defined as %d, expected %d", l.ID, id, next)
			}
			return nil
		})
	case "regions":
		return eachDef(jr, (*jsonRegion).setter, func(r *jsonRegion) error {
			if _, ok := jr.defs.RegionByNative(r.ID); ok {
				return fmt.Errorf("%w: region %d defined twice", ErrSyntax, r.ID)
			}
			k, ok := lookupName(regionKindNames, r.Kind)
			if !ok {
				return fmt.Errorf("%w: region %d: kind %q", ErrSyntax, r.ID, r.Kind)
			}
			p := 0
			if r.Paradigm != "" {
				if p, ok = lookupName(paradigmNames, r.Paradigm); !ok {
					return fmt.Errorf("%w: region %d: paradigm %q", ErrSyntax, r.ID, r.Paradigm)
				}
			}
			jr.defs.AddRegion(model.Region{Native: r.ID, Name: rawOr(r.NameBytes, r.Name), Kind: model.RegionKind(k),
				Group: rawOr(r.GroupBytes, r.Group), File: rawOr(r.FileBytes, r.File), Line: r.Line, Paradigm: model.Paradigm(p)})
			return nil
		})
	case "counters":
		var cs []jsonCounter
		if err := jr.decodeDefs(&cs); err != nil {
			return err
		}
		for _, c := range cs {
			if _, ok := jr.defs.CounterByNative(c.ID); ok {
				return fmt.Errorf("%w: counter %d defined twice", ErrSyntax, c.ID)
			}
			jr.defs.AddCounter(model.Counter{Native: c.ID, Name: rawOr(c.NameBytes, c.Name), Unit: rawOr(c.UnitBytes, c.Unit), Accumulating: c.Accumulating, Float: c.Float})
		}
	case "comms":
		var cs []jsonComm
		if err := jr.decodeDefs(&cs); err != nil {
			return err
		}
		for _, c := range cs {
			if _, ok := jr.defs.CommByNative(c.ID); ok {
				return fmt.Errorf("%w: communicator %d defined twice", ErrSyntax, c.ID)
			}
			var in map[int64]bool
			locs := func(ns []int64) ([]model.LocID, error) {
				var out []model.LocID
				for _, n := range ns {
					if in == nil {
						in = make(map[int64]bool)
					}
					if in[n] {
						return nil, fmt.Errorf("%w: communicator %d lists location %d twice", ErrSyntax, c.ID, n)
					}
					in[n] = true
					out = append(out, jr.loc(n))
				}
				return out, nil
			}
			members, err := locs(c.Members)
			if err != nil {
				return err
			}
			remote, err := locs(c.Remote)
			if err != nil {
				return err
			}
			if len(remote) > 0 && len(members) == 0 {
				return fmt.Errorf("%w: communicator %d has remote members but no members", ErrSyntax, c.ID)
			}
			if c.Self && len(members) > 0 {
				return fmt.Errorf("%w: communicator %d is each location's own but lists members", ErrSyntax, c.ID)
			}
			jr.defs.AddComm(model.Comm{Native: c.ID, Name: rawOr(c.NameBytes, c.Name), Members: members, Remote: remote, Self: c.Self})
		}
	default:
		var skip json.RawMessage
		return jr.dec.Decode(&skip)
	}
	return nil
}

// topKey records a key of the document object and rejects a repeated one.
func (jr *Reader) topKey(key string) error {
	if jr.top == nil {
		jr.top = make(map[string]bool)
	}
	if jr.top[key] {
		return fmt.Errorf("%w: key %q twice in the document", ErrSyntax, key)
	}
	jr.top[key] = true
	return nil
}

// decodeDefs decodes the next value, an array of definition objects, into
// v, after checking that no object repeats a key.
func (jr *Reader) decodeDefs(v any) error {
	var raw json.RawMessage
	if err := jr.dec.Decode(&raw); err != nil {
		return err
	}
	if err := dupKeys(raw); err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// eachDef decodes the next value, an array of definition objects, after
// checking that no object repeats a key, and calls add with each object in
// turn: a list of many definitions is not held decoded all at once.
func eachDef[T any](jr *Reader, set func(*T) fieldSetter, add func(*T) error) error {
	var raw json.RawMessage
	if err := jr.dec.Decode(&raw); err != nil {
		return err
	}
	if err := dupKeys(raw); err != nil {
		return err
	}
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		// null (no definitions), or a value that is not a list, which
		// json.Unmarshal refuses with the usual message.
		var all []T
		if err := json.Unmarshal(raw, &all); err != nil {
			return err
		}
		for i := range all {
			if err := add(&all[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return eachObject(raw, func(elem []byte) error {
		var v T
		if err := decodeDef(elem, &v, set); err != nil {
			return err
		}
		return add(&v)
	})
}

// dupKeys reports an object in the JSON value data that has a key twice
// (keys compared case-insensitively, as encoding/json matches fields).
// data must be valid JSON (as json.Decoder.Decode returns it): dupKeys
// scans its bytes for the strings and brackets only, allocating nothing
// for keys of lower-case ASCII without escapes, the keys of definitions.
func dupKeys(data []byte) error {
	// An object's keys are few: a slice, searched in order, up to
	// manyKeys, then a map. The frames' slices are reused from object to
	// object, so that a list of many small objects allocates none.
	const manyKeys = 16
	type frame struct {
		obj   bool            // an object, not an array
		keys  [][]byte        // lower-cased, while at most manyKeys
		many  map[string]bool // all keys, past manyKeys
		isKey bool            // the next string of an object is a key
	}
	var stack []frame
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) < cap(stack) {
				stack = stack[:len(stack)+1]
			} else {
				stack = append(stack, frame{})
			}
			f := &stack[len(stack)-1]
			*f = frame{obj: c == '{', keys: f.keys[:0], isKey: true}
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].isKey = true
			}
		case '"':
			j := i + 1
			for data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			raw := data[i+1 : j]
			i = j
			if len(stack) == 0 {
				continue // a string alone
			}
			top := &stack[len(stack)-1]
			if !top.obj || !top.isKey {
				continue
			}
			top.isKey = false
			k, err := foldKey(raw)
			if err != nil {
				return err
			}
			twice := false
			switch {
			case top.many != nil:
				twice = top.many[string(k)]
				top.many[string(k)] = true
			default:
				for _, x := range top.keys {
					if bytes.Equal(x, k) {
						twice = true
						break
					}
				}
				top.keys = append(top.keys, k)
				if len(top.keys) > manyKeys {
					top.many = make(map[string]bool, 2*manyKeys)
					for _, x := range top.keys {
						top.many[string(x)] = true
					}
				}
			}
			if twice {
				var key string
				if err := json.Unmarshal(data[i-len(raw)-1:i+1], &key); err != nil {
					return err
				}
				return fmt.Errorf("%w: key %q twice in an object", ErrSyntax, key)
			}
		}
	}
	return nil
}

// foldKey returns the key whose JSON string body (between the quotes) is
// raw, lower-cased: raw itself when it is lower-case ASCII without
// escapes.
func foldKey(raw []byte) ([]byte, error) {
	plain := true
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return raw, nil
	}
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	var key string
	if err := json.Unmarshal(q, &key); err != nil {
		return nil, err
	}
	return []byte(strings.ToLower(key)), nil
}

func lookupBytes(names []string, b []byte) (int, bool) {
	for i, n := range names {
		if n == string(b) {
			return i, true
		}
	}
	return 0, false
}

func lookupName(names []string, s string) (int, bool) {
	for i, n := range names {
		if n == s {
			return i, true
		}
	}
	return 0, false
}

// nest counts an enter or a leave of location l against MaxOpenRegions.
func (jr *Reader) nest(l model.LocID, enter bool) error {
	for int(l) >= len(jr.depth) {
		jr.depth = append(jr.depth, 0)
	}
	d := &jr.depth[l]
	switch {
	case !enter:
		*d = max(*d-1, 0)
	case *d >= jr.maxDepth:
		loc, _ := jr.defs.Location(l)
		return fmt.Errorf("%w: more than ReaderOptions.MaxOpenRegions (%d) regions open on location %d", ErrLimit, jr.maxDepth, loc.Native)
	default:
		*d++
	}
	return nil
}

// strLimiter passes a JSON text through to encoding/json, failing once a
// string, number or literal runs longer than max bytes (as written, which
// is at least its decoded length). The bytes read after the one over the
// limit are kept for the event scanner (see rest), which reaches the same
// token and reports it with its event index.
type strLimiter struct {
	r        io.Reader
	max      int
	run      int  // length of the current token
	inString bool // inside a string
	escape   bool // after a backslash in a string
	err      error
	pend     []byte // bytes read from r and not passed on
}

func (l *strLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		switch {
		case l.inString && l.escape:
			l.escape = false
			l.run++
		case l.inString && c == '\\':
			l.escape = true
			l.run++
		case l.inString && c == '"':
			l.inString = false
			l.run = 0
		case l.inString:
			l.run++
		case c == '"':
			l.inString, l.run = true, 0
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' ||
			c == '[' || c == ']' || c == '{' || c == '}':
			l.run = 0
		default:
			l.run++
		}
		if l.run > l.max {
			l.err = fmt.Errorf("%w: string longer than ReaderOptions.MaxString (%d bytes)", ErrLimit, l.max)
			l.pend = append(l.pend, p[i:n]...)
			return i, nil
		}
	}
	return n, err
}

// rest returns the bytes read from the source and not yet passed on.
func (l *strLimiter) rest() io.Reader { return bytes.NewReader(l.pend) }

// Defs returns the definitions read so far.
func (jr *Reader) Defs() *model.Defs { return &jr.defs }

// Event returns the current event. The Event is valid until the next call to
// Next; copy the value to keep it.
func (jr *Reader) Event() *model.Event { return &jr.ev }

// Err returns the first error other than io.EOF; nil after a clean end.
func (jr *Reader) Err() error { return jr.err }

// All returns a single-use iterator over the remaining events; see [model.All].
func (jr *Reader) All() iter.Seq2[*model.Event, error] { return model.All(jr) }

// Close closes the file [Open] or [OpenFS] opened and returns its error; a
// Reader from [NewReader] has nothing to close (its io.Reader is the
// caller's). After Close, Next returns false and Err keeps its value. A
// second Close returns nil.
func (jr *Reader) Close() error {
	jr.done = true
	c := jr.closer
	jr.closer = nil
	if c == nil {
		return nil
	}
	return c.Close()
}

// Next advances to the next event that ReaderOptions.Selection selects.
// It returns false at the end of the document or on error; errors are
// sticky. Every event of the document is read and checked, selected or
// not.
func (jr *Reader) Next() bool {
	for jr.next() {
		if !jr.filter || jr.sel.Keep(&jr.ev) {
			return true
		}
	}
	return false
}

// next advances to the next event of the document.
func (jr *Reader) next() bool {
	if jr.err != nil || jr.done {
		return false
	}
	more, err := jr.scanNext()
	if err == nil && more {
		err = jr.scanEvent()
	}
	if err != nil {
		jr.fail(jr.n, err)
		return false
	}
	if !more {
		if err := jr.finish(); err != nil {
			jr.fail(jr.n, err)
		}
		jr.done = true
		return false
	}
	if err := jr.convert(); err != nil {
		jr.fail(jr.n, err)
		return false
	}
	jr.n++
	return true
}

// finish reads the rest of the document after the events array: more
// header keys, the closing brace and nothing else. It hands the rest to
// encoding/json as an object of its own.
func (jr *Reader) finish() error {
	c, err := jr.skipSpace()
	if err != nil {
		return err
	}
	switch c {
	case ',':
		if c, err = jr.skipSpace(); err != nil {
			return err
		}
		if c == '}' {
			return syntaxErr("',' before '}'")
		}
	case '}':
	default:
		return syntaxErr("want ',' or '}' after the events, got %q", c)
	}
	jr.unreadByte()
	jr.off-- // the '{' added below
	jr.lim = &strLimiter{r: io.MultiReader(strings.NewReader("{"), jr.br), max: jr.maxString}
	jr.dec = json.NewDecoder(jr.lim)
	jr.dec.UseNumber()
	if err := jr.expectDelim('{'); err != nil {
		return err
	}
	for jr.dec.More() {
		key, err := jr.key()
		if err != nil {
			return err
		}
		switch key {
		case "events", "format":
			return fmt.Errorf("%w: key %q after the events", ErrSyntax, key)
		}
		if err := jr.topKey(key); err != nil {
			return err
		}
		if err := jr.header(key); err != nil {
			return err
		}
	}
	if err := jr.expectDelim('}'); err != nil {
		return err
	}
	if _, err := jr.dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: data after the document", ErrSyntax)
	}
	return nil
}

func (jr *Reader) loc(n int64) model.LocID {
	if id, ok := jr.defs.LocationByNative(n); ok {
		return id
	}
	return jr.defs.AddLocation(model.Location{Native: n})
}

func (jr *Reader) region(n int64) model.RegionID {
	if id, ok := jr.defs.RegionByNative(n); ok {
		return id
	}
	return jr.defs.AddRegion(model.Region{Native: n})
}

func (jr *Reader) regionByName(name []byte) (model.RegionID, bool) {
	if id, ok := jr.byName[string(name)]; ok {
		return id, true
	}
	for _, r := range jr.defs.Regions() {
		if r.Name == string(name) {
			if jr.byName == nil {
				jr.byName = make(map[string]model.RegionID)
			}
			jr.byName[r.Name] = r.ID
			return r.ID, true
		}
	}
	return 0, false
}

func (jr *Reader) comm(o optInt) model.CommID {
	if !o.ok {
		return 0
	}
	if id, ok := jr.defs.CommByNative(o.v); ok {
		return id
	}
	return jr.defs.AddComm(model.Comm{Native: o.v})
}

func (jr *Reader) convert() error {
	r := &jr.raw
	e := model.Event{Time: model.Time(r.T)}
	k, ok := lookupBytes(kindNames, r.Kind)
	if !ok || k == int(model.KindUnknown) {
		return fmt.Errorf("%w: kind %q", ErrSyntax, r.Kind)
	}
	e.Kind = model.Kind(k)
	if !r.Loc.ok {
		return fmt.Errorf("%w: no \"loc\"", ErrSyntax)
	}
	e.Loc = jr.loc(r.Loc.v)
	if r.BytesUnknown {
		e.Flags |= model.BytesUnknown
	}
	switch e.Kind {
	case model.KindEnter, model.KindLeave:
		if !r.Region.ok {
			return fmt.Errorf("%w: %s without \"region\"", ErrSyntax, e.Kind)
		}
		e.Region = jr.region(r.Region.v)
		if e.Kind == model.KindEnter && r.Site != 0 {
			e.Site = jr.defs.AddSite(model.Site{Line: r.Site})
		}
		if err := jr.nest(e.Loc, e.Kind == model.KindEnter); err != nil {
			return err
		}
	case model.KindSend, model.KindRecv:
		if r.Peer.ok {
			e.Peer = jr.loc(r.Peer.v)
		}
		if r.Bytes < 0 {
			return fmt.Errorf("%w: negative \"bytes\" %d", ErrSyntax, r.Bytes)
		}
		e.Tag, e.Comm, e.Bytes, e.Match = r.Tag, jr.comm(r.Comm), r.Bytes, r.Match
		if r.Sync {
			e.Flags |= model.SyncMode
		}
		switch string(r.Waited) {
		case "yes":
			e.Flags |= model.Waited
		case "no":
			e.Flags |= model.NotWaited
		case "", "unknown":
		default:
			return fmt.Errorf("%w: waited %q", ErrSyntax, r.Waited)
		}
	case model.KindCollBegin, model.KindCollPost, model.KindCollDone:
		if e.Kind != model.KindCollBegin && r.Match == 0 {
			return fmt.Errorf("%w: %s without \"match\"", ErrSyntax, e.Kind)
		}
		switch {
		case r.Op.ok && r.Op.isNum:
			e.Region = jr.region(r.Op.id)
		case r.Op.ok:
			id, ok := jr.regionByName(r.Op.name)
			if !ok {
				return fmt.Errorf("%w: op %q names no region", ErrSyntax, r.Op.name)
			}
			e.Region = id
		case r.Region.ok:
			e.Region = jr.region(r.Region.v)
		}
		if len(r.Class) > 0 {
			c, ok := lookupBytes(classNames, r.Class)
			if !ok {
				return fmt.Errorf("%w: class %q", ErrSyntax, r.Class)
			}
			e.Class = model.Class(c)
		}
		e.Comm = jr.comm(r.Comm)
		if r.Root.ok {
			e.Peer, _ = jr.defs.LocationByNative(r.Root.v)
		}
		if r.Sent < 0 || r.Recvd < 0 {
			return fmt.Errorf("%w: negative \"sent\" or \"recvd\" (%d, %d)", ErrSyntax, r.Sent, r.Recvd)
		}
		e.Bytes, e.Recvd, e.Match = r.Sent, r.Recvd, r.Match
	case model.KindRecvPost:
		if r.Peer.ok {
			e.Peer = jr.loc(r.Peer.v)
		}
		e.Tag, e.Comm, e.Match = r.Tag, jr.comm(r.Comm), r.Match
	case model.KindCollEnd, model.KindSendDone:
		e.Match = r.Match
	case model.KindParameter:
		e.Text = jr.defs.InternBytes(r.Text)
		e.Value = r.Value
		if r.HasString {
			e.Flags |= model.StringValue
			e.Value = int64(jr.defs.InternBytes(r.String))
		}
	case model.KindCounter:
		if !r.Counter.ok {
			return fmt.Errorf("%w: counter without \"counter\"", ErrSyntax)
		}
		if id, ok := jr.defs.CounterByNative(r.Counter.v); ok {
			e.Counter = id
		} else {
			e.Counter = jr.defs.AddCounter(model.Counter{Native: r.Counter.v})
		}
		e.Value = r.Value
	case model.KindMarker:
		if r.Region.ok {
			e.Region = jr.region(r.Region.v)
		}
		e.Text = jr.defs.InternBytes(r.Text)
	}
	jr.ev = e
	return nil
}
