//go:build !purego

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

// func merge4Asm(wk *winKeys, pieces *[4]winPiece, m int)
TEXT ·merge4Asm(SB), NOSPLIT, $32-24
	MOVQ wk+0(FP), DI
	MOVQ pieces+8(FP), SI
	MOVQ m+16(FP), DX
	// winPiece: a at 0, b at 8, d at 16 (32 bytes)
	MOVQ 0(SI), R8
	LEAQ (DI)(R8*8), R8
	MOVQ 8(SI), R9
	LEAQ (DI)(R9*8), R9
	MOVQ 16(SI), AX
	LEAQ (DI)(AX*8), AX
	MOVQ AX, 0(SP)
	MOVQ 32(SI), R10
	LEAQ (DI)(R10*8), R10
	MOVQ 40(SI), R11
	LEAQ (DI)(R11*8), R11
	MOVQ 48(SI), AX
	LEAQ (DI)(AX*8), AX
	MOVQ AX, 8(SP)
	MOVQ 64(SI), R12
	LEAQ (DI)(R12*8), R12
	MOVQ 72(SI), R13
	LEAQ (DI)(R13*8), R13
	MOVQ 80(SI), AX
	LEAQ (DI)(AX*8), AX
	MOVQ AX, 16(SP)
	MOVQ 96(SI), R14
	LEAQ (DI)(R14*8), R14
	MOVQ 104(SI), BX
	LEAQ (DI)(BX*8), BX
	MOVQ 112(SI), AX
	LEAQ (DI)(AX*8), AX
	MOVQ AX, 24(SP)
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
	// the positions back to indexes of wk, into g
	MOVQ wk+0(FP), DI
	MOVQ pieces+8(FP), SI
	SUBQ DI, R8
	SHRQ $3, R8
	MOVQ R8, 0(SI)
	SUBQ DI, R9
	SHRQ $3, R9
	MOVQ R9, 8(SI)
	SUBQ DI, R10
	SHRQ $3, R10
	MOVQ R10, 32(SI)
	SUBQ DI, R11
	SHRQ $3, R11
	MOVQ R11, 40(SI)
	SUBQ DI, R12
	SHRQ $3, R12
	MOVQ R12, 64(SI)
	SUBQ DI, R13
	SHRQ $3, R13
	MOVQ R13, 72(SI)
	SUBQ DI, R14
	SHRQ $3, R14
	MOVQ R14, 96(SI)
	SUBQ DI, BX
	SHRQ $3, BX
	MOVQ BX, 104(SI)
	RET
