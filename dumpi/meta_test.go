package dumpi

import "testing"

func TestRankOf(t *testing.T) {
	m := &Meta{FilePrefix: "dumpi-2026.11.22.01.33.17"}
	for _, rank := range []int{0, 3, 12, 9999, 12345} {
		if got, ok := RankOf("/runs/" + m.RankFile(rank)); !ok || got != rank {
			t.Errorf("RankOf(RankFile(%d)) = %d, %v; want %d, true", rank, got, ok, rank)
		}
	}
	if got, ok := RankOf("dumpi-2026.11.22-0003.bin"); !ok || got != 3 {
		t.Errorf("RankOf = %d, %v; want 3, true", got, ok)
	}
	for _, name := range []string{"trace.bin", "run-x.bin", "run-.bin", "run-+3.bin", "dir-7/trace.bin"} {
		if got, ok := RankOf(name); ok {
			t.Errorf("RankOf(%q) = %d, true; want false", name, got)
		}
	}
}
