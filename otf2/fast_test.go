package otf2

import (
	"encoding/binary"
	"testing"

	"pgregory.net/rapid"
)

// TestFastSameAsGeneric builds chunks of hot-kind records, well-formed or
// not (size bytes no compressed integer has, lengths shorter or longer
// than the fields, records cut by the chunk's end, long lengths, the
// other special bytes between them) and checks that the fast path reads
// the same events and errors as the generic decoder alone, with and
// without mapping tables and clock offsets.
func TestFastSameAsGeneric(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var body []byte
		comp := func(label string, max int) {
			switch rapid.IntRange(0, 9).Draw(t, label) {
			case 0:
				body = append(body, 0xff) // all ones
			case 1:
				body = append(body, byte(rapid.IntRange(max+1, 0xfe).Draw(t, label+"bad")))
			default:
				n := rapid.IntRange(0, max).Draw(t, label+"n")
				body = append(body, byte(n))
				for range n {
					body = append(body, byte(rapid.IntRange(0, 255).Draw(t, label+"b")))
				}
			}
		}
		data := []byte{bChunkHeader, endianLittle}
		data = binary.LittleEndian.AppendUint64(data, 1)
		data = binary.LittleEndian.AppendUint64(data, 1)
		for range rapid.IntRange(0, 30).Draw(t, "records") {
			if rapid.Bool().Draw(t, "timestamp") {
				data = append(data, bTimestamp)
				data = binary.LittleEndian.AppendUint64(data, rapid.Uint64Range(0, 1<<40).Draw(t, "time"))
			}
			kind := rapid.SampledFrom([]Kind{KindEnter, KindLeave, KindMpiSend, KindMpiRecv, KindMpiCollectiveBegin, KindMpiCollectiveEnd, KindMetric, KindMpiIsend, KindMpiIrecv, KindMpiIsendComplete, KindMpiIrecvRequest, KindMpiRequestTest, KindUnknown}).Draw(t, "kind")
			body = body[:0]
			switch kind {
			case KindEnter, KindLeave:
				data = append(data, uint8(kind))
				comp("region", 4)
				data = append(data, body...)
				continue
			case KindMpiIsendComplete, KindMpiIrecvRequest, KindMpiRequestTest:
				data = append(data, uint8(kind))
				comp("request", 8)
				data = append(data, body...)
				continue
			case KindMpiIsend, KindMpiIrecv:
				comp("peer", 4)
				comp("comm", 4)
				comp("tag", 4)
				comp("len", 8)
				comp("request", 8)
			case KindMpiSend, KindMpiRecv:
				comp("peer", 4)
				comp("comm", 4)
				comp("tag", 4)
				comp("len", 8)
			case KindMpiCollectiveEnd:
				body = append(body, byte(rapid.IntRange(0, 255).Draw(t, "op")))
				comp("comm", 4)
				comp("root", 4)
				comp("sent", 8)
				comp("recvd", 8)
			case KindMetric:
				comp("metric", 4)
				k := rapid.IntRange(0, 4).Draw(t, "metrics")
				body = append(body, byte(k))
				for range k {
					body = append(body, byte(rapid.IntRange(0, 12).Draw(t, "type")))
					comp("value", 8)
				}
			case KindUnknown:
				comp("x", 8)
			}
			typ := uint8(kind)
			if kind == KindUnknown {
				typ = 200
			}
			data = append(data, typ)
			l := len(body) + rapid.IntRange(-3, 3).Draw(t, "slack")
			switch {
			case rapid.IntRange(0, 20).Draw(t, "long") == 0:
				data = append(data, 0xff)
				data = binary.LittleEndian.AppendUint64(data, uint64(max(l, 0)))
			default:
				data = append(data, byte(min(max(l, 0), 0xfe)))
			}
			data = append(data, body...)
			if l > len(body) {
				data = append(data, make([]byte, l-len(body))...)
			}
		}
		if rapid.Bool().Draw(t, "end") {
			data = append(data, bEndOfFile)
		}
		size := int64(len(data))
		if rapid.Bool().Draw(t, "cut") {
			data = data[:rapid.IntRange(chunkHeaderSize, len(data)).Draw(t, "cutAt")]
		}
		size = max(size, chunkHeaderSize+2)
		sameAsGeneric(t, data, &EventReaderOptions{ChunkSize: size})
		var m Mapping
		for _, mt := range []MappingType{MappingTypeRegion, MappingTypeComm, MappingTypeMetric} {
			m.Set(mt, &IDMap{Dense: []uint64{7, 5, 3}})
		}
		sameAsGeneric(t, data, &EventReaderOptions{ChunkSize: size, Mapping: &m, Clock: []ClockOffset{{0, 100, 0}, {1 << 39, 300, 0}}})
	})
}

// TestFastLongIsend: an MpiIsend or MpiIrecv record whose request id
// starts past the fast path's 32-byte window (a timestamp, and every
// field before it at its longest: 35 bytes) is read as the generic path
// reads it, as is one whose request id starts within it.
func TestFastLongIsend(t *testing.T) {
	for _, kind := range []Kind{KindMpiIsend, KindMpiIrecv} {
		for _, lenBytes := range []int{8, 4} {
			data := []byte{bChunkHeader, endianLittle}
			data = binary.LittleEndian.AppendUint64(data, 1)
			data = binary.LittleEndian.AppendUint64(data, 1)
			// an Enter first: the generic path reads a chunk's first
			// record, the fast path those after it
			data = append(data, uint8(KindEnter), 1, 7)
			data = append(data, bTimestamp)
			data = binary.LittleEndian.AppendUint64(data, 12345)
			body := []byte{4, 1, 2, 3, 4, 4, 5, 6, 7, 8, 4, 9, 10, 11, 12, byte(lenBytes)}
			for i := range lenBytes {
				body = append(body, byte(20+i))
			}
			body = append(body, 8, 31, 32, 33, 34, 35, 36, 37, 38)
			data = append(data, uint8(kind), byte(len(body)))
			data = append(data, body...)
			data = append(data, bEndOfFile)
			data = append(data, make([]byte, fastWindow)...)
			sameAsGeneric(t, data, &EventReaderOptions{ChunkSize: int64(len(data))})
		}
	}
}
