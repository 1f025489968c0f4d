//go:build amd64 && !purego

package otf2

// decodeHot is decodeHotGo in assembly (hot_amd64.s). The record
// decoder is the largest part of a merged read's CPU time, and the Go
// compiler keeps too few of its loop's values in registers
// (BenchmarkDecodeBatch, with and without -tags purego, compares the
// two). TestDecodeHotSameAsGo and FuzzDecodeHot check
// that both decode the same; TestDecodeHotGuardPage that it reads
// nothing past its input.
//
//go:noescape
func decodeHot(b []byte, off int, time uint64, dst []BatchEvent) (k, next int, last uint64)

// haveMerge4Asm says merge4Asm is in assembly.
const haveMerge4Asm = true

// merge4Asm is merge4Go in assembly (merge_amd64.s), for pieces whose
// positions and outputs, m steps on, lie in wk: it runs the m steps and
// leaves each piece's positions in its a and b. Its positions are
// pointers in registers, where merge4Go's compiled loop keeps some on
// the stack, which the harness's merged read (go run ./bench, its
// otf2-read row) shows in its CPU time. TestMerge4SameAsGo checks it
// against merge4Go.
//
//go:noescape
func merge4Asm(wk *winKeys, pieces *[4]winPiece, m int)
