package eventjson

import (
	"strconv"

	"github.com/hpctrace/hpctrace/model"
)

// The names the form gives the model's enumerations are their String
// methods': "enter", "coll_begin", "function", "barrier", "mpi", … These
// tables hold them, index = value, up to the first value String does not
// name (it prints "Kind(n)" and the like there). They are filled once and
// only read.
var (
	kindNames       = names("Kind", func(i int) string { return model.Kind(i).String() })
	classNames      = names("Class", func(i int) string { return model.Class(i).String() })
	regionKindNames = names("RegionKind", func(i int) string { return model.RegionKind(i).String() })
	paradigmNames   = names("Paradigm", func(i int) string { return model.Paradigm(i).String() })
)

// names returns the names str gives the values 0, 1, … of a uint8
// enumeration of type typ, up to the first value it does not name.
func names(typ string, str func(int) string) []string {
	var out []string
	for i := range 256 {
		s := str(i)
		if s == typ+"("+strconv.Itoa(i)+")" {
			break
		}
		out = append(out, s)
	}
	return out
}
