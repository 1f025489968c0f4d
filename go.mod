module github.com/hpctrace/hpctrace

go 1.26

require (
	github.com/google/go-cmp v0.7.0
	golang.org/x/exp v0.0.0-20231110203233-9a3e6036ecaa
	pgregory.net/rapid v1.3.0
)
