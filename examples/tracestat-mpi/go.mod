module github.com/hpctrace/hpctrace/examples/tracestat-mpi

go 1.26

require github.com/hpctrace/hpctrace v0.0.0

require golang.org/x/exp v0.0.0-20231110203233-9a3e6036ecaa // indirect

replace github.com/hpctrace/hpctrace => ../..
