module github.com/hpctrace/hpctrace/examples/tracestat-mpi

go 1.26

require github.com/hpctrace/hpctrace v0.0.0

replace github.com/hpctrace/hpctrace => ../..
