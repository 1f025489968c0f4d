package picl_test

import (
	"bytes"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/picl"
)

// Generators for the round-trip property. They produce records as a Reader
// returns them: every token carries the text it is written with, and
// descriptor aliases resolve as the stream's -6 records say.

var convSpellings = []string{"%d", "%i", "%u", "%ld", "%li", "%lu", "%lld",
	"%f", "%lf", "%e", "%le", "%g", "%lg", "%E", "%G", "%s"}

func convKind(spelling string) picl.Kind {
	switch spelling[len(spelling)-1] {
	case 's':
		return picl.KindString
	case 'd', 'i', 'u':
		return picl.KindInt
	}
	return picl.KindFloat
}

// genControl draws a decodable control string of one to three conversions.
func genControl() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(1, 3).Draw(t, "conversions")
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(rapid.SampledFrom([]string{"", " ", ",", "x"}).Draw(t, "sep"))
			}
			b.WriteString(rapid.SampledFrom(convSpellings).Draw(t, "conv"))
		}
		return b.String()
	})
}

// kinds returns the value kinds of a control string's conversions.
func kinds(control string) []picl.Kind {
	var ks []picl.Kind
	for i := 0; i < len(control); i++ {
		if control[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(control) && control[j] == 'l' {
			j++
		}
		ks = append(ks, convKind(control[i:j+1]))
		i = j
	}
	return ks
}

func genInt() *rapid.Generator[picl.Value] {
	return rapid.Custom(func(t *rapid.T) picl.Value {
		n := rapid.OneOf(rapid.Int64Range(-1, 100), rapid.Int64()).Draw(t, "int")
		text := strconv.FormatInt(n, 10)
		if n >= 0 && rapid.Bool().Draw(t, "plus") {
			text = "+" + text
		}
		return picl.Value{Kind: picl.KindInt, Int: n, Text: []byte(text)}
	})
}

// genFloatText draws a float token in one of the forms writers use.
func genFloatText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		f := rapid.OneOf(rapid.Float64Range(-2, 2), rapid.Float64Range(-1e30, 1e30)).Draw(t, "float")
		switch rapid.IntRange(0, 4).Draw(t, "form") {
		case 0:
			return strconv.FormatFloat(f, 'f', 6, 64)
		case 1:
			return strconv.FormatFloat(f, 'f', 5, 64)
		case 2:
			return strconv.FormatFloat(f, 'g', -1, 64)
		case 3:
			return strconv.FormatFloat(f, 'e', 3, 64)
		}
		return strconv.FormatInt(int64(f), 10)
	})
}

func genFloat() *rapid.Generator[picl.Value] {
	return rapid.Custom(func(t *rapid.T) picl.Value {
		text := genFloatText().Draw(t, "text")
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("generated float %q: %v", text, err)
		}
		return picl.Value{Kind: picl.KindFloat, Float: f, Text: []byte(text)}
	})
}

// wordChars are characters of %s values and raw text: no blanks, no line
// ends.
const wordChars = `abcXYZ019-_.,:%"'()=`

func genWord() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		w := rapid.StringOfN(rapid.RuneFrom([]rune(wordChars)), 1, 8, -1).Draw(t, "word")
		if w[0] == '"' {
			w = "w" + w
		}
		return w
	})
}

func genString() *rapid.Generator[picl.Value] {
	return rapid.Custom(func(t *rapid.T) picl.Value {
		if rapid.Bool().Draw(t, "quoted") {
			s := rapid.StringOfN(rapid.RuneFrom([]rune("ab c\t%-.")), 0, 10, -1).Draw(t, "quoted string")
			return picl.Value{Kind: picl.KindString, Text: []byte(s), Quoted: true}
		}
		return picl.Value{Kind: picl.KindString, Text: []byte(genWord().Draw(t, "word"))}
	})
}

func genValue(k picl.Kind) *rapid.Generator[picl.Value] {
	switch k {
	case picl.KindInt:
		return genInt()
	case picl.KindFloat:
		return genFloat()
	}
	return genString()
}

// genRaw draws raw text: words separated by single blanks.
func genRaw() *rapid.Generator[[]byte] {
	return rapid.Custom(func(t *rapid.T) []byte {
		words := rapid.SliceOfN(genWord(), 1, 4).Draw(t, "raw words")
		return []byte(strings.Join(words, " "))
	})
}

// A streamGen draws a stream of records, keeping the global alias
// definitions it has written so that alias descriptors resolve as a
// Reader will resolve them.
type streamGen struct {
	aliases map[int]string
}

var predefinedControls = []string{"%c", "%s", "%d", "%ld", "%f", "%lf"}

func (g *streamGen) control(alias int) (string, bool) {
	if c, ok := g.aliases[alias]; ok {
		return c, true
	}
	if alias < len(predefinedControls) {
		return predefinedControls[alias], true
	}
	return "", false
}

var recordTypes = []picl.RecordType{picl.RecordMark, picl.RecordEntry, picl.RecordExit, picl.RecordLabel,
	picl.RecordMessage, picl.RecordStatTime, picl.RecordStatCount, picl.RecordStatVolume,
	picl.RecordProcessorSubset, picl.RecordProcessSubset, picl.RecordEventSubset, 0, 7, 1 << 20, -9, -300}

// record draws one record.
func (g *streamGen) record(t *rapid.T) picl.Record {
	timeText := genFloatText().Draw(t, "time")
	tm, _ := strconv.ParseFloat(timeText, 64)
	rec := picl.Record{
		Type:      rapid.SampledFrom(recordTypes).Draw(t, "type"),
		Event:     picl.EventType(rapid.OneOf(rapid.Int32Range(-1000, 100), rapid.Int32()).Draw(t, "event")),
		Time:      tm,
		TimeText:  []byte(timeText),
		Processor: rapid.OneOf(rapid.Int32Range(-3, 8), rapid.Int32()).Draw(t, "processor"),
		Process:   rapid.Int32Range(-2, 3).Draw(t, "process"),
	}
	switch rapid.IntRange(0, 9).Draw(t, "shape") {
	case 0: // an alias definition
		alias := rapid.IntRange(0, 9).Draw(t, "alias")
		ctl := rapid.OneOf(genControl(), rapid.Just("%c")).Draw(t, "defined control")
		if g.aliases == nil {
			g.aliases = make(map[int]string)
		}
		g.aliases[alias] = ctl
		rec.Type, rec.Event, rec.Processor, rec.Process = picl.RecordDescriptor, -1, -1, -1
		rec.Count, rec.Descriptor, rec.Control = 1, `"%d%s"`, "%d%s"
		rec.Data = []picl.Value{
			{Kind: picl.KindInt, Int: int64(alias), Text: []byte(strconv.Itoa(alias))},
			{Kind: picl.KindString, Text: []byte(ctl), Quoted: true},
		}
		return rec
	case 1: // count 0, perhaps with trailing text
		if rapid.Bool().Draw(t, "trailing") {
			rec.Flags, rec.Raw = picl.FlagTrailing, genRaw().Draw(t, "raw")
		}
		return rec
	case 2: // character data
		chars := rapid.SliceOfN(rapid.ByteRange(' ', '~'), 1, 30).Draw(t, "chars")
		rec.Count, rec.Chars = len(chars), chars
		rec.Descriptor, rec.Control = `"%c"`, "%c"
		if c, _ := g.control(0); c == "%c" && rapid.Bool().Draw(t, "alias 0") {
			rec.Descriptor = "0"
		}
		return rec
	case 3: // undecodable control string
		ctl := rapid.SampledFrom([]string{"%5d", "%*d%d", "%[abc]", "%c%d", "%n", "abc", "%hd"}).Draw(t, "undecodable")
		rec.Count = rapid.IntRange(1, 4).Draw(t, "count")
		rec.Descriptor, rec.Control = `"`+ctl+`"`, ctl
		rec.Flags, rec.Raw = picl.FlagUndecoded, genRaw().Draw(t, "raw")
		return rec
	case 4: // undefined alias
		alias := rapid.IntRange(10, 1<<20).Draw(t, "undefined alias")
		rec.Count = rapid.IntRange(1, 4).Draw(t, "count")
		rec.Descriptor = strconv.Itoa(alias)
		rec.Flags, rec.Raw = picl.FlagUndecoded, genRaw().Draw(t, "raw")
		return rec
	}
	// Decoded values, through an alias or a quoted control string.
	var ctl string
	if rapid.Bool().Draw(t, "use alias") {
		alias := rapid.IntRange(1, 9).Draw(t, "alias")
		c, ok := g.control(alias)
		if !ok || c == "%c" {
			c, alias = "%d", 2
			if g.aliases[2] != "" {
				c = g.aliases[2]
			}
		}
		if c == "%c" { // alias 2 redefined as %c: use a quoted descriptor
			c = "%d"
			rec.Descriptor = `"%d"`
		} else {
			rec.Descriptor = strconv.Itoa(alias)
		}
		ctl = c
	} else {
		ctl = genControl().Draw(t, "control")
		rec.Descriptor = `"` + ctl + `"`
	}
	rec.Control = ctl
	ks := kinds(ctl)
	rec.Count = rapid.IntRange(1, 4).Draw(t, "count")
	n := rec.Count * len(ks)
	if rapid.IntRange(0, 5).Draw(t, "truncate") == 0 {
		n = rapid.IntRange(0, n-1).Draw(t, "values present")
		rec.Flags |= picl.FlagTruncated
	}
	for i := range n {
		rec.Data = append(rec.Data, genValue(ks[i%len(ks)]).Draw(t, "value"))
	}
	if rec.Flags == 0 && rapid.IntRange(0, 5).Draw(t, "trailing") == 0 {
		rec.Flags, rec.Raw = picl.FlagTrailing, genRaw().Draw(t, "raw")
	}
	return rec
}

// genStream draws a stream of up to 40 records.
func genStream() *rapid.Generator[[]picl.Record] {
	return rapid.Custom(func(t *rapid.T) []picl.Record {
		var g streamGen
		n := rapid.IntRange(0, 40).Draw(t, "records")
		recs := make([]picl.Record, n)
		for i := range recs {
			recs[i] = g.record(t)
		}
		return recs
	})
}

// readAll reads a whole stream, cloning each record.
func readAll(t rapid.TB, data []byte, opts *picl.ReaderOptions) []picl.Record {
	t.Helper()
	r, err := picl.NewReader(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var recs []picl.Record
	for rec, err := range r.All() {
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, data)
		}
		recs = append(recs, rec.Clone())
	}
	return recs
}

// writeAll writes recs and returns the bytes.
func writeAll(t rapid.TB, recs []picl.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := picl.NewWriter(&buf, nil)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatalf("Write(record %d): %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.Bytes()
}
