package eventjson

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The definitions of a trace of many locations are a million small
// objects: decoding each by reflection (encoding/json) costs more than
// reading the events. An object whose values are plain strings (no
// escapes, valid UTF-8), integers and booleans under the keys the reader
// knows, spelled in lower case, is decoded here directly; any other is
// left to encoding/json, which gives the same value, or the error.

// A fieldSetter stores the value val of key in its object: the bytes
// between the quotes of a string (str), or a literal. It returns false for
// a key or value it does not take as it is.
type fieldSetter func(key, val []byte, str bool) bool

// eachObject calls decode with each element of the JSON array data, which
// must be valid JSON.
func eachObject(data []byte, decode func(elem []byte) error) error {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil
	}
	i++
	for {
		i = skipWS(data, i)
		if i >= len(data) || data[i] == ']' {
			return nil
		}
		if data[i] == ',' {
			i++
			continue
		}
		j := valueEnd(data, i)
		if err := decode(data[i:j]); err != nil {
			return err
		}
		i = j
	}
}

// valueEnd returns the end of the JSON value (valid) that starts at i.
func valueEnd(data []byte, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i) - 1
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',':
			if depth == 0 {
				return i
			}
		case ' ', '\t', '\r', '\n':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// stringEnd returns the position after the closing quote of the string
// whose opening quote is at i.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data) && data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	return i + 1
}

func skipWS(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// plainFields passes the fields of the JSON object obj (valid) to set and
// reports whether it took them all: false if a value is not a plain string
// or a literal, or set refuses one.
func plainFields(obj []byte, set fieldSetter) bool {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for {
		i = skipWS(obj, i)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		ke := stringEnd(obj, i)
		key := obj[i+1 : ke-1]
		i = skipWS(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipWS(obj, i+1)
		if i >= len(obj) {
			return false
		}
		var val []byte
		str := obj[i] == '"'
		switch {
		case str:
			e := stringEnd(obj, i)
			val = obj[i+1 : e-1]
			i = e
			if !plainString(val) {
				return false
			}
		case obj[i] == '{' || obj[i] == '[' || obj[i] == 'n':
			return false // an object, a list or null: encoding/json's
		default:
			e := valueEnd(obj, i)
			val = obj[i:e]
			i = e
		}
		if !set(key, val, str) {
			return false
		}
	}
}

// plainString reports whether the body of a JSON string has no escapes
// and is valid UTF-8, so that its bytes are its value.
func plainString(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// intField parses a literal as an integer of bits bits.
func intField(val []byte, str bool, bits int) (int64, bool) {
	if str {
		return 0, false
	}
	v, err := strconv.ParseInt(string(val), 10, bits)
	return v, err == nil
}

// decodeDef decodes the definition object elem into v: directly when
// plainFields takes it with set (fields of v), else by encoding/json.
func decodeDef[T any](elem []byte, v *T, set func(*T) fieldSetter) error {
	var fast T
	if plainFields(elem, set(&fast)) {
		*v = fast
		return nil
	}
	return json.Unmarshal(elem, v)
}

func (l *jsonLocation) setter() fieldSetter {
	return func(key, val []byte, str bool) bool {
		var ok bool
		switch string(key) {
		case "id":
			l.ID, ok = intField(val, str, 64)
		case "name":
			l.Name, ok = string(val), str
		case "process":
			var v int64
			v, ok = intField(val, str, 32)
			l.Process = int32(v)
		case "thread":
			var v int64
			v, ok = intField(val, str, 32)
			l.Thread = int32(v)
		case "host":
			switch {
			case str:
			case string(val) == "true":
				l.Host, ok = true, true
			case string(val) == "false":
				l.Host, ok = false, true
			}
		case "mpi":
			switch {
			case str:
			case string(val) == "true":
				l.MPI, ok = true, true
			case string(val) == "false":
				l.MPI, ok = false, true
			}
		case "stream":
			var v int64
			if v, ok = intField(val, str, 64); ok {
				l.Stream = &v
			}
		}
		return ok
	}
}

func (r *jsonRegion) setter() fieldSetter {
	return func(key, val []byte, str bool) bool {
		var ok bool
		switch string(key) {
		case "id":
			r.ID, ok = intField(val, str, 64)
		case "name":
			r.Name, ok = string(val), str
		case "kind":
			r.Kind, ok = string(val), str
		case "group":
			r.Group, ok = string(val), str
		case "file":
			r.File, ok = string(val), str
		case "paradigm":
			r.Paradigm, ok = string(val), str
		case "line":
			var v int64
			v, ok = intField(val, str, 32)
			r.Line = int32(v)
		}
		return ok
	}
}
