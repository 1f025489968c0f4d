package dumpi

//go:generate go run ../internal/gen/dumpigen -dir .
