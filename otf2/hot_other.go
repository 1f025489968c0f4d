//go:build !amd64 || purego

package otf2

// decodeHot is decodeHotGo where there is no assembly for it.
func decodeHot(b []byte, off int, time uint64, dst []BatchEvent) (k, next int, last uint64) {
	return decodeHotGo(b, off, time, dst)
}

// haveMerge4Asm says merge4Asm is in assembly.
const haveMerge4Asm = false

func merge4Asm(wk *winKeys, pieces *[4]winPiece, m int) { panic("otf2: merge4Asm without assembly") }
