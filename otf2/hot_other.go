//go:build !amd64 || purego

package otf2

// decodeHot is decodeHotGo where there is no assembly for it.
func decodeHot(b []byte, off int, time uint64, dst []BatchEvent) (k, next int, last uint64) {
	return decodeHotGo(b, off, time, dst)
}
