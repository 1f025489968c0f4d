package waitstate

import "strings"

// mpiOps classifies the MPI functions the patterns name (doc/waitstates.md
// §2.1, §2.2). Names compare without regard to case.
var mpiOps = map[string]uint8{
	"mpi_barrier":              opBarrier,
	"mpi_allreduce":            opNxN,
	"mpi_allgather":            opNxN,
	"mpi_allgatherv":           opNxN,
	"mpi_alltoall":             opNxN,
	"mpi_alltoallv":            opNxN,
	"mpi_alltoallw":            opNxN,
	"mpi_reduce_scatter":       opNxN,
	"mpi_reduce_scatter_block": opNxN,
	"mpi_bcast":                opBcast,
	"mpi_scatter":              opBcast,
	"mpi_scatterv":             opBcast,
	"mpi_reduce":               opReduce,
	"mpi_gather":               opReduce,
	"mpi_gatherv":              opReduce,
	"mpi_scan":                 opScan,
	"mpi_exscan":               opScan,
	"mpi_init":                 opInit,
	"mpi_init_thread":          opInit,
	"mpi_finalize":             opFinalize,
	"mpi_test":                 opTest,
	"mpi_testall":              opTest,
	"mpi_testany":              opTest,
	"mpi_testsome":             opTest,
}

// classify returns the operation of an MPI call named name: a pattern's
// operation, opTest, opNBColl for the non-blocking (MPI_I…) and
// neighbourhood forms of the collectives, opOther for the rest.
func classify(name string) uint8 {
	low := strings.ToLower(name)
	if op, ok := mpiOps[low]; ok {
		return op
	}
	if strings.HasPrefix(low, "mpi_neighbor_") || strings.HasPrefix(low, "mpi_ineighbor_") {
		return opNBColl
	}
	if rest, ok := strings.CutPrefix(low, "mpi_i"); ok {
		switch mpiOps["mpi_"+rest] {
		case opBarrier, opNxN, opBcast, opReduce, opScan:
			return opNBColl
		}
	}
	return opOther
}
