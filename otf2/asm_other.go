//go:build !amd64 || purego

package otf2

// decodeHot is decodeHotGo where there is no assembly for it.
func decodeHot(b []byte, off int, time uint64, dst []BatchEvent) (k, next int, last uint64) {
	return decodeHotGo(b, off, time, dst)
}

// haveMerge4Asm says merge4Asm is in assembly.
const haveMerge4Asm = false

// merge4Asm is merge4Go where there is no assembly for it (merge4 does
// not call it then).
func merge4Asm(wk *winKeys, pieces *[4]winPiece, m int) {
	end := merge4Go(wk, pieces[:], m)
	for i := range pieces {
		pieces[i].a, pieces[i].b = end[2*i], end[2*i+1]
	}
}
