package picl

import (
	"math"

	"github.com/hpctrace/hpctrace/internal/textscan"
)

// conv is the kind of one conversion of a control string.
type conv uint8

const (
	convInt conv = iota + 1
	convFloat
	convString
	convChar
)

// controlInfo summarises a control string without allocating.
type controlInfo struct {
	n         int  // number of conversions
	chars     bool // a lone %c
	undecoded bool // uses features the SDK does not decode, or has no conversion
}

// scanControl walks the conversions of a control string, calling f (if not
// nil) for each one. Characters that are not conversions are separators.
func scanControl(s string, f func(conv)) controlInfo {
	var ci controlInfo
	nchar := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		i++
		if i < len(s) && s[i] == '%' {
			continue // a literal percent sign
		}
		l := 0
		for i < len(s) && s[i] == 'l' && l < 2 {
			l++
			i++
		}
		if i == len(s) {
			ci.undecoded = true
			break
		}
		var c conv
		switch s[i] {
		case 'd', 'i', 'u':
			c = convInt
		case 'f', 'e', 'g', 'E', 'G':
			if l <= 1 {
				c = convFloat
			}
		case 's':
			if l == 0 {
				c = convString
			}
		case 'c':
			if l == 0 {
				c = convChar
				nchar++
			}
		}
		if c == 0 || (l == 2 && s[i] != 'd') {
			ci.undecoded = true // widths, %*, %[, %n, %h…, %L…, %lc, %lls…
			continue
		}
		ci.n++
		if f != nil {
			f(c)
		}
	}
	switch {
	case ci.n == 0:
		ci.undecoded = true
	case nchar > 0 && ci.n > 1:
		ci.undecoded = true // %c mixed with other conversions
	case nchar == 1:
		ci.chars = true
	}
	return ci
}

// parseControl is scanControl without a callback.
func parseControl(s string) controlInfo { return scanControl(s, nil) }

// A control is a compiled control string. Controls are immutable once
// built and shared between records.
type control struct {
	text  string
	convs []conv
	ints  bool // decoded, and every conversion is an integer
	controlInfo
}

func compileControl(text string) *control {
	c := &control{text: text}
	c.controlInfo = scanControl(text, func(k conv) { c.convs = append(c.convs, k) })
	c.ints = !c.undecoded && !c.chars && len(c.convs) > 0
	for _, k := range c.convs {
		c.ints = c.ints && k == convInt
	}
	return c
}

// The predefined aliases 0-5.
var predefined = [6]*control{
	compileControl("%c"),
	compileControl("%s"),
	compileControl("%d"),
	compileControl("%ld"),
	compileControl("%f"),
	compileControl("%lf"),
}

// aliasText holds the canonical tokens of small aliases, so that resolving
// them needs no allocation.
var aliasText = [...]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
	"10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20"}

// maxCache bounds the descriptor caches; past it they start afresh.
const maxCache = 1024

// descCache interns descriptor tokens and compiled quoted control strings so
// that a steady stream of records allocates nothing.
type descCache struct {
	quoted  map[string]*quotedDesc
	aliases map[string]string
	last    *quotedDesc
}

type quotedDesc struct {
	token string // with the quotes
	ctl   *control
}

// quotedControl returns the interned descriptor and compiled control for a
// quoted token (tok includes the quotes).
func (c *descCache) quotedControl(tok []byte) *quotedDesc {
	if c.last != nil && c.last.token == string(tok) {
		return c.last
	}
	if q, ok := c.quoted[string(tok)]; ok {
		c.last = q
		return q
	}
	if c.quoted == nil || len(c.quoted) >= maxCache {
		c.quoted = make(map[string]*quotedDesc)
	}
	s := string(tok)
	q := &quotedDesc{token: s, ctl: compileControl(s[1 : len(s)-1])}
	c.quoted[s] = q
	c.last = q
	return q
}

// aliasToken interns an alias token.
func (c *descCache) aliasToken(tok []byte, alias int64) string {
	if alias < int64(len(aliasText)) && aliasText[alias] == string(tok) {
		return aliasText[alias]
	}
	if s, ok := c.aliases[string(tok)]; ok {
		return s
	}
	if c.aliases == nil || len(c.aliases) >= maxCache {
		c.aliases = make(map[string]string)
	}
	s := string(tok)
	c.aliases[s] = s
	return s
}

// quotedString is quotedControl for a token held in a string.
func (c *descCache) quotedString(tok string) *quotedDesc {
	if c.last != nil && c.last.token == tok {
		return c.last
	}
	if q, ok := c.quoted[tok]; ok {
		c.last = q
		return q
	}
	if c.quoted == nil || len(c.quoted) >= maxCache {
		c.quoted = make(map[string]*quotedDesc)
	}
	q := &quotedDesc{token: tok, ctl: compileControl(tok[1 : len(tok)-1])}
	c.quoted[tok] = q
	c.last = q
	return q
}

func (c *descCache) reset() {
	c.last = nil
}

// parseDescriptorToken checks a descriptor token: a quoted control string
// (without '"' inside) or a non-negative decimal alias that fits in 32 bits.
// It returns the alias, or -1 for a quoted token.
func parseDescriptorToken[T string | []byte](tok T) (int64, error) {
	if len(tok) == 0 {
		return 0, ErrSyntax
	}
	if tok[0] == '"' {
		if len(tok) < 2 || tok[len(tok)-1] != '"' {
			return 0, ErrSyntax
		}
		for i := 1; i < len(tok)-1; i++ {
			if tok[i] == '"' || tok[i] == '\n' {
				return 0, ErrSyntax
			}
		}
		return -1, nil
	}
	var n int64
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c < '0' || c > '9' {
			return 0, ErrSyntax
		}
		if n = n*10 + int64(c-'0'); n > math.MaxInt32 {
			return 0, ErrRange
		}
	}
	return n, nil
}

// textIsInt reports whether text is an integer token whose value is v.
func textIsInt(text []byte, v int64) bool {
	if len(text) == 0 {
		return false
	}
	n, err := textscan.ParseInt(text, 64)
	return err == nil && n == v
}

// textIsFloat reports whether text is a float token whose value is v.
func textIsFloat(text []byte, v float64) bool {
	if len(text) == 0 {
		return false
	}
	f, err := textscan.ParseFloat(text)
	return err == nil && f == v
}
