package model

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONFormat is the value of the "format" key of a trace-events JSON document.
const JSONFormat = "trace-events-json/1"

// JSONReaderOptions configures a JSONReader. A nil or zero value means defaults.
type JSONReaderOptions struct {
	Path string // used only in error messages

	// MaxString bounds the length in bytes of a string anywhere in the
	// document, decoded, and of a number or literal outside the events
	// array (which encoding/json holds in memory; the event scanner keeps
	// no digits). Longer ones stop the reader with an error wrapping
	// ErrLimit. 0 means 1 MiB; a negative value means no limit.
	MaxString int

	// MaxDepth bounds the regions open at once on one location (enters
	// not yet left), which a consumer such as a statistics accumulator
	// keeps in memory (tens of bytes each). More stop the reader with an
	// error wrapping ErrLimit. 0 means 1<<20; a negative value means no
	// limit.
	MaxDepth int
}

// Defaults of JSONReaderOptions.
const (
	defaultMaxString = 1 << 20
	defaultMaxDepth  = 1 << 20
)

// JSONReader reads the trace-events JSON form ("trace-events-json/1"), a
// readable interchange form of model events:
//
//	{"format": "trace-events-json/1", "ticks_per_second": 1000000,
//	 "locations": [{"id": 0, "name": "node0", "process": 0, "thread": 0}],
//	 "regions": [{"id": 1, "name": "main", "kind": "function", "line": 1}],
//	 "events": [{"t": 0, "loc": 0, "kind": "enter", "region": 1, "site": 0}, …]}
//
// The "id" of a location or region is its Native value; the reader assigns
// dense ids in order of appearance. Event keys: t, loc, kind (enter, leave,
// send, recv, coll_begin, coll_end, counter, marker, recv_post, send_done,
// program_begin, program_end, parameter, coll_post, coll_done), region and site (source line)
// for enter and leave, peer, tag, comm, bytes, sync (bool) and waited
// ("yes", "no", "unknown") for send and recv, and match (the request of a
// non-blocking operation; absent or 0 for a blocking one); peer, tag, comm
// and match for recv_post; match for send_done; op (region name or id),
// class, comm, root, sent, recvd and match for coll_begin, and the same
// for coll_post and coll_done, whose match (the request) is required; match for
// coll_end; counter and value; text and an optional region for marker;
// text (the name) and either value (an integer) or string (a string
// value, Flags StringValue) for parameter; none for program_begin and
// program_end. A region may have a "paradigm" ("user", "mpi", "openmp",
// … as [Paradigm.String] names them; absent for ParadigmUnknown).
// Optional extensions written by [JSONWriter]: "counters" definitions,
// "comms" definitions ({"id": 10, "name": "world", "members": [0, 1],
// "remote": [2]}: the id is the communicator's Native, as an event's
// "comm"; members and remote list location ids, the ranks in order, for
// an intercommunicator remote the other group; without "members" the
// membership is unknown; "self": true marks each location's own
// communicator, as MPI_COMM_SELF, which lists no members; after "locations", as a location it names first
// is defined without a name), "host", "group" and "file" fields,
// "bytes_unknown", and the exact bytes of a name that is not valid UTF-8
// in standard base64 beside it
// ("name_bytes", "group_bytes", "file_bytes", "unit_bytes"), which then
// give the definition's string instead of the field without "_bytes". A
// send or recv without a peer has no known partner (Peer 0). Sizes
// (bytes, sent, recvd) are not negative: a negative one is an [ErrSyntax]
// error for the reader and an [ErrRange] one for [JSONWriter].
//
// Locations, regions, counters and communicators that events use without a
// definition are defined on first use with an empty name, except a
// coll_begin root that names no defined location, which means "no root".
// Definitions must precede "events" to carry names.
//
// JSONReader is a streaming reader. The header and whatever follows the
// events array are decoded with encoding/json; the events are read by a
// small scanner that allocates nothing per event in the steady state (new
// definitions and new marker texts allocate once). Keys match
// case-insensitively (ASCII), unknown keys are skipped, and null means
// absent, as with encoding/json. Unlike encoding/json, a key repeated in the
// document object, a definition object or (among the known keys) an event
// object is a syntax error, not a value that silently replaces the first.
//
// Limits: JSONReaderOptions.MaxString bounds every string (1 MiB by
// default) and MaxDepth the regions open at once on a location (1<<20 by
// default); beyond them the reader stops with an error wrapping ErrLimit.
// Memory is otherwise proportional to the definitions, the locations and
// the longest event.
type JSONReader struct {
	path   string
	dec    *json.Decoder // the header, and what follows the events
	br     *bufio.Reader // the events array, read by the scanner of jsonscan.go
	off    int64         // offset of br's next byte in the document
	sbuf   []byte        // the decoded strings of the current event
	defs   Defs
	ev     Event
	raw    jsonEvent
	n      int64
	err    error
	inArr  bool
	done   bool
	byName map[string]RegionID

	maxString int     // MaxString; math.MaxInt for no limit
	maxDepth  int32   // MaxDepth; math.MaxInt32 for no limit
	depth     []int32 // open regions per location
	lim       *strLimiter
	top       map[string]bool // keys of the document object seen
}

type jsonLocation struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	NameBytes []byte `json:"name_bytes"`
	Process   int32  `json:"process"`
	Thread    int32  `json:"thread"`
	Host      bool   `json:"host,omitempty"`
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

// NewJSONReader reads the document header up to the first event and returns
// a reader positioned before it. Definitions given before "events" are in
// Defs when NewJSONReader returns.
func NewJSONReader(r io.Reader, opts *JSONReaderOptions) (*JSONReader, error) {
	jr := &JSONReader{maxString: defaultMaxString, maxDepth: defaultMaxDepth}
	if opts != nil {
		jr.path = opts.Path
		switch {
		case opts.MaxString < 0:
			jr.maxString = math.MaxInt
		case opts.MaxString > 0:
			jr.maxString = opts.MaxString
		}
		switch {
		case opts.MaxDepth < 0 || opts.MaxDepth > math.MaxInt32:
			jr.maxDepth = math.MaxInt32
		case opts.MaxDepth > 0:
			jr.maxDepth = int32(opts.MaxDepth)
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

func (jr *JSONReader) fail(rec int64, err error) error {
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

func (jr *JSONReader) expectDelim(d json.Delim) error {
	tok, err := jr.dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("%w: want %q, got %v", ErrSyntax, d, tok)
	}
	return nil
}

func (jr *JSONReader) key() (string, error) {
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

func (jr *JSONReader) header(key string) error {
	switch key {
	case "format":
		var f string
		if err := jr.dec.Decode(&f); err != nil {
			return err
		}
		if f != JSONFormat {
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
			jr.defs.AddLocation(Location{Native: l.ID, Name: rawOr(l.NameBytes, l.Name), Process: l.Process, Thread: l.Thread, Host: l.Host})
			return nil
		})
	case "regions":
		return eachDef(jr, (*jsonRegion).setter, func(r *jsonRegion) error {
			if _, ok := jr.defs.RegionByNative(r.ID); ok {
				return fmt.Errorf("%w: region %d defined twice", ErrSyntax, r.ID)
			}
			k, ok := lookupName(regionKindNames[:], r.Kind)
			if !ok {
				return fmt.Errorf("%w: region %d: kind %q", ErrSyntax, r.ID, r.Kind)
			}
			p := 0
			if r.Paradigm != "" {
				if p, ok = lookupName(paradigmNames[:], r.Paradigm); !ok {
					return fmt.Errorf("%w: region %d: paradigm %q", ErrSyntax, r.ID, r.Paradigm)
				}
			}
			jr.defs.AddRegion(Region{Native: r.ID, Name: rawOr(r.NameBytes, r.Name), Kind: RegionKind(k),
				Group: rawOr(r.GroupBytes, r.Group), File: rawOr(r.FileBytes, r.File), Line: r.Line, Paradigm: Paradigm(p)})
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
			jr.defs.AddCounter(Counter{Native: c.ID, Name: rawOr(c.NameBytes, c.Name), Unit: rawOr(c.UnitBytes, c.Unit), Accumulating: c.Accumulating, Float: c.Float})
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
			locs := func(ns []int64) ([]LocID, error) {
				var out []LocID
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
			jr.defs.AddComm(Comm{Native: c.ID, Name: rawOr(c.NameBytes, c.Name), Members: members, Remote: remote, Self: c.Self})
		}
	default:
		var skip json.RawMessage
		return jr.dec.Decode(&skip)
	}
	return nil
}

// topKey records a key of the document object and rejects a repeated one.
func (jr *JSONReader) topKey(key string) error {
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
func (jr *JSONReader) decodeDefs(v any) error {
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
func eachDef[T any](jr *JSONReader, set func(*T) fieldSetter, add func(*T) error) error {
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

// nest counts an enter or a leave of location l against MaxDepth.
func (jr *JSONReader) nest(l LocID, enter bool) error {
	for int(l) >= len(jr.depth) {
		jr.depth = append(jr.depth, 0)
	}
	d := &jr.depth[l]
	switch {
	case !enter:
		*d = max(*d-1, 0)
	case *d >= jr.maxDepth:
		return fmt.Errorf("%w: more than JSONReaderOptions.MaxDepth (%d) regions open on location %d", ErrLimit, jr.maxDepth, jr.defs.locs[l].Native)
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
			l.err = fmt.Errorf("%w: string longer than JSONReaderOptions.MaxString (%d bytes)", ErrLimit, l.max)
			l.pend = append(l.pend, p[i:n]...)
			return i, nil
		}
	}
	return n, err
}

// rest returns the bytes read from the source and not yet passed on.
func (l *strLimiter) rest() io.Reader { return bytes.NewReader(l.pend) }

// Defs returns the definitions read so far.
func (jr *JSONReader) Defs() *Defs { return &jr.defs }

// Event returns the current event. The Event is valid until the next call to
// Next; copy the value to keep it.
func (jr *JSONReader) Event() *Event { return &jr.ev }

// Err returns the first error other than io.EOF; nil after a clean end.
func (jr *JSONReader) Err() error { return jr.err }

// All returns a single-use iterator over the remaining events; see [All].
func (jr *JSONReader) All() iter.Seq2[*Event, error] { return All(jr) }

// Close makes the reader an io.Closer like every format's model source. A
// JSONReader holds no resource of its own: the io.Reader it reads is the
// caller's to close. Close returns nil.
func (jr *JSONReader) Close() error { return nil }

// Next advances to the next event. It returns false at the end of the
// document or on error; errors are sticky.
func (jr *JSONReader) Next() bool {
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
func (jr *JSONReader) finish() error {
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

func (jr *JSONReader) loc(n int64) LocID {
	if id, ok := jr.defs.LocationByNative(n); ok {
		return id
	}
	return jr.defs.AddLocation(Location{Native: n})
}

func (jr *JSONReader) region(n int64) RegionID {
	if id, ok := jr.defs.RegionByNative(n); ok {
		return id
	}
	return jr.defs.AddRegion(Region{Native: n})
}

func (jr *JSONReader) regionByName(name []byte) (RegionID, bool) {
	if id, ok := jr.byName[string(name)]; ok {
		return id, true
	}
	for _, r := range jr.defs.Regions() {
		if r.Name == string(name) {
			if jr.byName == nil {
				jr.byName = make(map[string]RegionID)
			}
			jr.byName[r.Name] = r.ID
			return r.ID, true
		}
	}
	return 0, false
}

func (jr *JSONReader) comm(o optInt) CommID {
	if !o.ok {
		return 0
	}
	if id, ok := jr.defs.CommByNative(o.v); ok {
		return id
	}
	return jr.defs.AddComm(Comm{Native: o.v})
}

func (jr *JSONReader) convert() error {
	r := &jr.raw
	e := Event{Time: Time(r.T)}
	k, ok := lookupBytes(kindNames[:], r.Kind)
	if !ok || k == int(KindUnknown) {
		return fmt.Errorf("%w: kind %q", ErrSyntax, r.Kind)
	}
	e.Kind = Kind(k)
	if !r.Loc.ok {
		return fmt.Errorf("%w: no \"loc\"", ErrSyntax)
	}
	e.Loc = jr.loc(r.Loc.v)
	if r.BytesUnknown {
		e.Flags |= BytesUnknown
	}
	switch e.Kind {
	case KindEnter, KindLeave:
		if !r.Region.ok {
			return fmt.Errorf("%w: %s without \"region\"", ErrSyntax, e.Kind)
		}
		e.Region = jr.region(r.Region.v)
		if e.Kind == KindEnter && r.Site != 0 {
			e.Site = jr.defs.AddSite(Site{Line: r.Site})
		}
		if err := jr.nest(e.Loc, e.Kind == KindEnter); err != nil {
			return err
		}
	case KindSend, KindRecv:
		if r.Peer.ok {
			e.Peer = jr.loc(r.Peer.v)
		}
		if r.Bytes < 0 {
			return fmt.Errorf("%w: negative \"bytes\" %d", ErrSyntax, r.Bytes)
		}
		e.Tag, e.Comm, e.Bytes, e.Match = r.Tag, jr.comm(r.Comm), r.Bytes, r.Match
		if r.Sync {
			e.Flags |= SyncMode
		}
		switch string(r.Waited) {
		case "yes":
			e.Flags |= Waited
		case "no":
			e.Flags |= NotWaited
		case "", "unknown":
		default:
			return fmt.Errorf("%w: waited %q", ErrSyntax, r.Waited)
		}
	case KindCollBegin, KindCollPost, KindCollDone:
		if e.Kind != KindCollBegin && r.Match == 0 {
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
			c, ok := lookupBytes(classNames[:], r.Class)
			if !ok {
				return fmt.Errorf("%w: class %q", ErrSyntax, r.Class)
			}
			e.Class = Class(c)
		}
		e.Comm = jr.comm(r.Comm)
		if r.Root.ok {
			e.Peer, _ = jr.defs.LocationByNative(r.Root.v)
		}
		if r.Sent < 0 || r.Recvd < 0 {
			return fmt.Errorf("%w: negative \"sent\" or \"recvd\" (%d, %d)", ErrSyntax, r.Sent, r.Recvd)
		}
		e.Bytes, e.Recvd, e.Match = r.Sent, r.Recvd, r.Match
	case KindRecvPost:
		if r.Peer.ok {
			e.Peer = jr.loc(r.Peer.v)
		}
		e.Tag, e.Comm, e.Match = r.Tag, jr.comm(r.Comm), r.Match
	case KindCollEnd, KindSendDone:
		e.Match = r.Match
	case KindParameter:
		e.Text = jr.defs.InternBytes(r.Text)
		e.Value = r.Value
		if r.HasString {
			e.Flags |= StringValue
			e.Value = int64(jr.defs.InternBytes(r.String))
		}
	case KindCounter:
		if !r.Counter.ok {
			return fmt.Errorf("%w: counter without \"counter\"", ErrSyntax)
		}
		if id, ok := jr.defs.CounterByNative(r.Counter.v); ok {
			e.Counter = id
		} else {
			e.Counter = jr.defs.AddCounter(Counter{Native: r.Counter.v})
		}
		e.Value = r.Value
	case KindMarker:
		if r.Region.ok {
			e.Region = jr.region(r.Region.v)
		}
		e.Text = jr.defs.InternBytes(r.Text)
	}
	jr.ev = e
	return nil
}

// JSONWriter writes events in the trace-events JSON form read by
// [JSONReader], one event per line. The header (time base, locations,
// regions, counters) is written from the Defs as they stand at the first
// Write or at Close, so every definition must be added before the first
// event is written. Locations are written with their Native values as ids,
// unless two share one (the processes of one PICL processor): then every
// location's id is its index, 0 … n-1. Regions and counters too are
// written with their Native values as ids unless two share one (regions
// added without a Native all have 0): then every region's (or counter's)
// id is its model id, 1 … n. Sites are written as their line
// numbers (site file names are not represented) and communicators as
// their Native values; the communicators with a name or members are
// defined in a "comms" header when their Natives are unique (the others
// are defined by their first use).
//
// Strings are JSON strings, which hold only Unicode: a name that is not
// valid UTF-8 (a function name in KOI8-R or Latin-1, as tracers copy
// symbol bytes) is written with U+FFFD for each invalid byte, and beside
// it a field of the same key with "_bytes" appended ("name_bytes",
// "group_bytes", "file_bytes", "unit_bytes") giving its exact bytes in
// standard base64, which JSONReader gives back. Such a region is named by
// its id, not its name, in a coll_begin "op". Marker texts have no such
// field: their invalid bytes become U+FFFD. A send or recv without a
// known peer (Peer 0) is written without "peer".
type JSONWriter struct {
	bw      *bufio.Writer
	defs    *Defs
	buf     []byte
	started bool
	closed  bool
	n       int64
	err     error
	nloc    int
	dense   bool // locations are written with dense ids: their Natives are not unique
	denseR  bool // regions are written with their model ids: their Natives are not unique
	denseC  bool // counters are written with their model ids: their Natives are not unique
	nreg    int
	ncnt    int
	opNames map[RegionID]bool // regions whose names are unique
}

// locID is the "id" a location is written with: its Native, or its dense
// index when two locations share a Native.
func (w *JSONWriter) locID(id LocID) int64 {
	if w.dense {
		return int64(id) - 1
	}
	l, _ := w.defs.Location(id)
	return l.Native
}

// regID is the "id" a region is written with: its Native, or its model
// id when two regions share a Native.
func (w *JSONWriter) regID(id RegionID) int64 {
	if w.denseR {
		return int64(id)
	}
	r, _ := w.defs.Region(id)
	return r.Native
}

// cntID is the "id" a counter is written with: its Native, or its model
// id when two counters share a Native.
func (w *JSONWriter) cntID(id CounterID) int64 {
	if w.denseC {
		return int64(id)
	}
	c, _ := w.defs.Counter(id)
	return c.Native
}

// unique reports whether the natives of defs are all different.
func unique[T any](defs []T, native func(T) int64) bool {
	seen := make(map[int64]bool, len(defs))
	for _, d := range defs {
		n := native(d)
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

// NewJSONWriter returns a writer of the events of a trace with the given
// definitions. It writes nothing until the first Write or Close.
func NewJSONWriter(w io.Writer, defs *Defs) (*JSONWriter, error) {
	if defs == nil {
		return nil, errors.New("model: NewJSONWriter: nil Defs")
	}
	return &JSONWriter{bw: bufio.NewWriter(w), defs: defs}, nil
}

func (w *JSONWriter) header() {
	d := w.defs
	b := w.buf[:0]
	b = append(b, `{"format":"`+JSONFormat+`","ticks_per_second":`...)
	b = strconv.AppendUint(b, d.TimeBase.TicksPerSecond, 10)
	b = append(b, ",\n\"locations\":["...)
	natives := make(map[int64]bool, d.NumLocations())
	for _, l := range d.Locations() {
		if natives[l.Native] {
			w.dense = true
			break
		}
		natives[l.Native] = true
	}
	for i, l := range d.Locations() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{\"id\":"...)
		b = strconv.AppendInt(b, w.locID(l.ID), 10)
		b = appendName(b, "name", l.Name)
		b = append(b, `,"process":`...)
		b = strconv.AppendInt(b, int64(l.Process), 10)
		b = append(b, `,"thread":`...)
		b = strconv.AppendInt(b, int64(l.Thread), 10)
		if l.Host {
			b = append(b, `,"host":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, "],\n\"regions\":["...)
	w.denseR = !unique(d.Regions(), func(r Region) int64 { return r.Native })
	w.denseC = !unique(d.Counters(), func(c Counter) int64 { return c.Native })
	names := make(map[string]int)
	for _, r := range d.Regions() {
		names[r.Name]++
	}
	w.opNames = make(map[RegionID]bool)
	for i, r := range d.Regions() {
		if names[r.Name] == 1 && r.Name != "" && utf8.ValidString(r.Name) {
			w.opNames[r.ID] = true
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{\"id\":"...)
		b = strconv.AppendInt(b, w.regID(r.ID), 10)
		b = appendName(b, "name", r.Name)
		b = append(b, `,"kind":"`...)
		b = append(b, r.Kind.String()...)
		b = append(b, '"')
		if r.Group != "" {
			b = appendName(b, "group", r.Group)
		}
		if r.File != "" {
			b = appendName(b, "file", r.File)
		}
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
		if r.Paradigm != ParadigmUnknown && int(r.Paradigm) < len(paradigmNames) {
			b = append(b, `,"paradigm":"`...)
			b = append(b, r.Paradigm.String()...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if cs := d.Counters(); len(cs) > 0 {
		b = append(b, ",\n\"counters\":["...)
		for i, c := range cs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n{\"id\":"...)
			b = strconv.AppendInt(b, w.cntID(c.ID), 10)
			b = appendName(b, "name", c.Name)
			if c.Unit != "" {
				b = appendName(b, "unit", c.Unit)
			}
			if c.Accumulating {
				b = append(b, `,"accumulating":true`...)
			}
			if c.Float {
				b = append(b, `,"float":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = w.appendComms(b)
	b = append(b, ",\n\"events\":["...)
	w.nloc, w.nreg, w.ncnt = d.NumLocations(), d.NumRegions(), len(d.Counters())
	w.buf = b
	w.started = true
}

// appendComms appends the "comms" header: the communicators with a name
// or members, when the communicators' Natives are unique (an event names
// its communicator by Native).
func (w *JSONWriter) appendComms(b []byte) []byte {
	cs := w.defs.Comms()
	if !unique(cs, func(c Comm) int64 { return c.Native }) {
		return b
	}
	first := true
	for _, c := range cs {
		if c.Name == "" && len(c.Members) == 0 && !c.Self {
			continue
		}
		if first {
			b = append(b, ",\n\"comms\":["...)
		} else {
			b = append(b, ',')
		}
		first = false
		b = append(b, "\n{\"id\":"...)
		b = strconv.AppendInt(b, c.Native, 10)
		b = appendName(b, "name", c.Name)
		for _, g := range []struct {
			key  string
			locs []LocID
		}{{"members", c.Members}, {"remote", c.Remote}} {
			if len(g.locs) == 0 {
				continue
			}
			b = append(b, `,"`...)
			b = append(b, g.key...)
			b = append(b, `":[`...)
			for i, l := range g.locs {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, w.locID(l), 10)
			}
			b = append(b, ']')
		}
		if c.Self {
			b = append(b, `,"self":true`...)
		}
		b = append(b, '}')
	}
	if !first {
		b = append(b, ']')
	}
	return b
}

// rangeErr reports an event the writer cannot encode: an error wrapping
// ErrRange that names the event index (a ParseError is for malformed input
// only).
func (w *JSONWriter) rangeErr(format string, args ...any) error {
	return fmt.Errorf("model: record %d: %s: %w", w.n, fmt.Sprintf(format, args...), ErrRange)
}

// Write encodes one event. It validates ev first: an event that refers to an
// id not defined when the header was written, or of an unknown kind, is
// rejected with an error wrapping ErrRange and nothing is written. Write does
// not retain ev.
func (w *JSONWriter) Write(ev *Event) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if !w.started {
		w.header()
		if _, err := w.bw.Write(w.buf); err != nil {
			w.err = err
			return err
		}
	}
	d := w.defs
	locOK := func(id LocID) bool { return id != 0 && int(id) <= w.nloc }
	regOK := func(id RegionID) bool { return id != 0 && int(id) <= w.nreg }
	if !locOK(ev.Loc) {
		return w.rangeErr("field Loc: location %d not defined", ev.Loc)
	}
	if ev.Kind == KindUnknown || int(ev.Kind) >= len(kindNames) {
		return w.rangeErr("field Kind: %v", ev.Kind)
	}
	b := w.buf[:0]
	if w.n > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n{\"t\":"...)
	b = strconv.AppendInt(b, int64(ev.Time), 10)
	b = append(b, `,"loc":`...)
	b = strconv.AppendInt(b, w.locID(ev.Loc), 10)
	b = append(b, `,"kind":"`...)
	b = append(b, ev.Kind.String()...)
	b = append(b, '"')
	comm := func(b []byte) []byte {
		if ev.Comm == 0 {
			return b
		}
		c, _ := d.Comm(ev.Comm)
		b = append(b, `,"comm":`...)
		return strconv.AppendInt(b, c.Native, 10)
	}
	switch ev.Kind {
	case KindEnter, KindLeave:
		if !regOK(ev.Region) {
			return w.rangeErr("field Region: region %d not defined", ev.Region)
		}
		b = append(b, `,"region":`...)
		b = strconv.AppendInt(b, w.regID(ev.Region), 10)
		if ev.Kind == KindEnter {
			s, ok := d.Site(ev.Site)
			if ev.Site != 0 && (!ok || s.Line == 0) {
				return w.rangeErr("field Site: site %d has no line number", ev.Site)
			}
			b = append(b, `,"site":`...)
			b = strconv.AppendInt(b, int64(s.Line), 10)
		}
	case KindSend, KindRecv:
		if ev.Peer != 0 {
			if !locOK(ev.Peer) {
				return w.rangeErr("field Peer: location %d not defined", ev.Peer)
			}
			b = append(b, `,"peer":`...)
			b = strconv.AppendInt(b, w.locID(ev.Peer), 10)
		}
		if _, ok := d.Comm(ev.Comm); ev.Comm != 0 && !ok {
			return w.rangeErr("field Comm: communicator %d not defined", ev.Comm)
		}
		b = append(b, `,"tag":`...)
		b = strconv.AppendInt(b, int64(ev.Tag), 10)
		b = comm(b)
		if ev.Bytes < 0 {
			return w.rangeErr("field Bytes: negative size %d", ev.Bytes)
		}
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, ev.Bytes, 10)
		if ev.Kind == KindSend {
			b = append(b, `,"sync":`...)
			b = strconv.AppendBool(b, ev.Flags&SyncMode != 0)
		} else {
			switch {
			case ev.Flags&Waited != 0:
				b = append(b, `,"waited":"yes"`...)
			case ev.Flags&NotWaited != 0:
				b = append(b, `,"waited":"no"`...)
			default:
				b = append(b, `,"waited":"unknown"`...)
			}
		}
		if ev.Flags&BytesUnknown != 0 {
			b = append(b, `,"bytes_unknown":true`...)
		}
		if ev.Match != 0 {
			b = append(b, `,"match":`...)
			b = strconv.AppendUint(b, ev.Match, 10)
		}
	case KindRecvPost:
		if ev.Peer != 0 {
			if !locOK(ev.Peer) {
				return w.rangeErr("field Peer: location %d not defined", ev.Peer)
			}
			b = append(b, `,"peer":`...)
			b = strconv.AppendInt(b, w.locID(ev.Peer), 10)
		}
		if _, ok := d.Comm(ev.Comm); ev.Comm != 0 && !ok {
			return w.rangeErr("field Comm: communicator %d not defined", ev.Comm)
		}
		b = append(b, `,"tag":`...)
		b = strconv.AppendInt(b, int64(ev.Tag), 10)
		b = comm(b)
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case KindSendDone:
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case KindParameter:
		b = append(b, `,"text":`...)
		b = appendString(b, d.String(ev.Text))
		if ev.Flags&StringValue != 0 {
			b = append(b, `,"string":`...)
			b = appendString(b, d.String(StringID(ev.Value)))
		} else {
			b = append(b, `,"value":`...)
			b = strconv.AppendInt(b, ev.Value, 10)
		}
	case KindCollBegin, KindCollPost, KindCollDone:
		if ev.Kind != KindCollBegin && ev.Match == 0 {
			return w.rangeErr("field Match: %v without a request", ev.Kind)
		}
		if ev.Region != 0 {
			if !regOK(ev.Region) {
				return w.rangeErr("field Region: region %d not defined", ev.Region)
			}
			r, _ := d.Region(ev.Region)
			b = append(b, `,"op":`...)
			if w.opNames[ev.Region] {
				b = appendString(b, r.Name)
			} else {
				b = strconv.AppendInt(b, w.regID(ev.Region), 10)
			}
		}
		if int(ev.Class) >= len(classNames) {
			return w.rangeErr("field Class: %v", ev.Class)
		}
		if _, ok := d.Comm(ev.Comm); ev.Comm != 0 && !ok {
			return w.rangeErr("field Comm: communicator %d not defined", ev.Comm)
		}
		b = append(b, `,"class":"`...)
		b = append(b, ev.Class.String()...)
		b = append(b, '"')
		b = comm(b)
		if ev.Peer != 0 {
			if !locOK(ev.Peer) {
				return w.rangeErr("field Peer: location %d not defined", ev.Peer)
			}
			b = append(b, `,"root":`...)
			b = strconv.AppendInt(b, w.locID(ev.Peer), 10)
		}
		if ev.Bytes < 0 || ev.Recvd < 0 {
			return w.rangeErr("fields Bytes, Recvd: negative size %d, %d", ev.Bytes, ev.Recvd)
		}
		b = append(b, `,"sent":`...)
		b = strconv.AppendInt(b, ev.Bytes, 10)
		b = append(b, `,"recvd":`...)
		b = strconv.AppendInt(b, ev.Recvd, 10)
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case KindCollEnd:
		b = append(b, `,"match":`...)
		b = strconv.AppendUint(b, ev.Match, 10)
	case KindCounter:
		if ev.Counter == 0 || int(ev.Counter) > w.ncnt {
			return w.rangeErr("field Counter: counter %d not defined", ev.Counter)
		}
		b = append(b, `,"counter":`...)
		b = strconv.AppendInt(b, w.cntID(ev.Counter), 10)
		b = append(b, `,"value":`...)
		b = strconv.AppendInt(b, ev.Value, 10)
	case KindMarker:
		if ev.Region != 0 {
			if !regOK(ev.Region) {
				return w.rangeErr("field Region: region %d not defined", ev.Region)
			}
			b = append(b, `,"region":`...)
			b = strconv.AppendInt(b, w.regID(ev.Region), 10)
		}
		b = append(b, `,"text":`...)
		b = appendString(b, d.String(ev.Text))
	}
	b = append(b, '}')
	w.buf = b
	if _, err := w.bw.Write(b); err != nil {
		w.err = err
		return err
	}
	w.n++
	return nil
}

// Flush writes buffered data to the underlying writer.
func (w *JSONWriter) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// Close writes the header if no event was written, ends the document and
// flushes. It does not close the underlying writer: the caller owns it,
// and the file under it. A second Close returns nil.
//
// If Close, or a Write or Flush before it, fails, the underlying writer
// holds what was flushed before the failure: a document without its end,
// which a JSONReader rejects after the events it holds. A caller writing a
// file should write to a temporary file and rename it into place only
// after Close and the file's own Close succeed, and remove it otherwise.
func (w *JSONWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if !w.started {
		w.header()
		if _, err := w.bw.Write(w.buf); err != nil {
			w.err = err
			return err
		}
	}
	if _, err := w.bw.WriteString("\n]}\n"); err != nil {
		w.err = err
		return err
	}
	return w.Flush()
}

// appendName appends the field ,"key":s, and when s is not valid UTF-8
// the field ,"key_bytes": with its bytes in standard base64, so that a
// reader can give them back (see JSONReader).
func appendName(b []byte, key, s string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	b = appendString(b, s)
	if !utf8.ValidString(s) {
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, `_bytes":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(s))
		b = append(b, '"')
	}
	return b
}

// rawOr returns the bytes of a "_bytes" field when it was given, else s.
func rawOr(raw []byte, s string) string {
	if raw != nil {
		return string(raw)
	}
	return s
}

// appendString appends s as a JSON string. Invalid UTF-8 is replaced by
// U+FFFD, as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
