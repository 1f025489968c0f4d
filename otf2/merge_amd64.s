//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// STEP is one merge step of the piece whose read positions are the
// pointers a and b and whose output starts at the pointer at out(SP):
// the smaller of the keys at a and b goes to the output's place CX, and
// a moves on if its key is the smaller, b otherwise. The positions move
// by conditional moves, not a branch, as merge4Go's do.
#define STEP(a, b, out) \
	MOVQ (a), AX \
	MOVQ (b), SI \
	LEAQ 8(a), DI \
	CMPQ AX, SI \
	CMOVQCS DI, a \
	LEAQ 8(b), DI \
	CMOVQCC DI, b \
	CMOVQCC SI, AX \
	MOVQ out(SP), DI \
	MOVQ AX, (DI)(CX*8)

// PIECE loads the piece at off(SI) of the pieces: its positions a and b
// as pointers into wk (DI), and its output's, at out(SP). The offsets of
// winPiece's fields come from go_asm.h.
#define PIECE(off, a, b, out) \
	MOVQ off+winPiece_a(SI), a \
	LEAQ (DI)(a*8), a \
	MOVQ off+winPiece_b(SI), b \
	LEAQ (DI)(b*8), b \
	MOVQ off+winPiece_d(SI), AX \
	LEAQ (DI)(AX*8), AX \
	MOVQ AX, out(SP)

// BACK stores the pointers a and b into wk (DI) as the positions of the
// piece at off(SI).
#define BACK(off, a, b) \
	SUBQ DI, a \
	SHRQ $3, a \
	MOVQ a, off+winPiece_a(SI) \
	SUBQ DI, b \
	SHRQ $3, b \
	MOVQ b, off+winPiece_b(SI)

// func merge4Asm(wk *winKeys, pieces *[4]winPiece, m int)
TEXT ·merge4Asm(SB), NOSPLIT, $32-24
	MOVQ wk+0(FP), DI
	MOVQ pieces+8(FP), SI
	MOVQ m+16(FP), DX
	PIECE(0, R8, R9, 0)
	PIECE(winPiece__size, R10, R11, 8)
	PIECE(2*winPiece__size, R12, R13, 16)
	PIECE(3*winPiece__size, R14, BX, 24)
	XORL CX, CX
	CMPQ CX, DX
	JGE  done

loop:
	STEP(R8, R9, 0)
	STEP(R10, R11, 8)
	STEP(R12, R13, 16)
	STEP(R14, BX, 24)
	INCQ CX
	CMPQ CX, DX
	JLT  loop

done:
	// the positions back to indexes of wk, into the pieces
	MOVQ wk+0(FP), DI
	MOVQ pieces+8(FP), SI
	BACK(0, R8, R9)
	BACK(winPiece__size, R10, R11)
	BACK(2*winPiece__size, R12, R13)
	BACK(3*winPiece__size, R14, BX)
	RET
