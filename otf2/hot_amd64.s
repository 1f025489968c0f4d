//go:build !purego

#include "textflag.h"

// decodeHot is decodeHotGo (batch.go) written out for amd64; see
// hot_amd64.go. Registers:
//
//	DI  the record's first byte (its timestamp record, if any)
//	R8  the last position at which a record may start: DI ≤ R8 ⇔ off+fastWindow ≤ len(b)
//	R14 the end of b
//	R9  the time of the last decoded record
//	DX  the next event of dst, R10 the end of dst
//	R11 the address of compMask
//	X0  zero
//	AX  the record's kind, R12 its time, SI the position of its next field,
//	R13 its end (records with a size byte); BX, CX scratch

// COMP32 reads the compressed 32-bit integer at SI into BX and moves SI
// past it; a size byte other than 0 to 4 and 0xff ends the loop.
#define COMP32(big, back) \
	MOVBLZX (SI), CX \
	CMPL CX, $4 \
	JA big \
	MOVQ 1(SI), BX \
	ANDQ (R11)(CX*8), BX \
	LEAQ 1(SI)(CX*1), SI \
back:

// COMP64 is COMP32 for a compressed 64-bit integer (0 to 8 bytes).
#define COMP64(big, back) \
	MOVBLZX (SI), CX \
	CMPL CX, $8 \
	JA big \
	MOVQ 1(SI), BX \
	ANDQ (R11)(CX*8), BX \
	LEAQ 1(SI)(CX*1), SI \
back:

// BIG32 and BIG64 are the out-of-line part of COMP32 and COMP64: the
// size byte 0xff stands for the largest value and no bytes.
#define BIG32(big, back) \
big: \
	CMPL CX, $0xff \
	JNE done \
	MOVL $0xffffffff, BX \
	INCQ SI \
	JMP back

#define BIG64(big, back) \
big: \
	CMPL CX, $0xff \
	JNE done \
	MOVQ $-1, BX \
	INCQ SI \
	JMP back

// func decodeHot(b []byte, off int, time uint64, dst []BatchEvent) (k int, next int, last uint64)
TEXT ·decodeHot(SB), NOSPLIT, $0-88
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), R8
	MOVQ off+24(FP), DI
	MOVQ time+32(FP), R9
	MOVQ dst_base+40(FP), DX
	MOVQ dst_len+48(FP), R10
	LEAQ (SI)(R8*1), R14
	ADDQ SI, DI
	SUBQ $48, R8          // fastWindow
	JB   done             // b shorter than a window
	ADDQ SI, R8
	SHLQ $6, R10          // 64 bytes per BatchEvent
	ADDQ DX, R10
	LEAQ ·compMask(SB), R11
	PXOR X0, X0

loop:
	CMPQ DX, R10
	JAE  done
	CMPQ DI, R8
	JA   done
	MOVBLZX (DI), AX
	CMPL AX, $5           // a timestamp record
	JNE  nots
	MOVQ 1(DI), R12
	MOVBLZX 9(DI), AX
	LEAL -12(AX), CX      // Enter or Leave
	CMPL CX, $1
	JA   tsother
	MOVBLZX 10(DI), CX    // the region: a compressed 32-bit integer
	CMPL CX, $4
	JA   tsbig
	MOVQ 11(DI), BX
	ANDQ (R11)(CX*8), BX
	LEAQ 11(DI)(CX*1), DI

enterleave:
	MOVQ R12, (DX)
	MOVQ BX, 16(DX)
	MOVUPS X0, 24(DX)
	MOVUPS X0, 40(DX)
	MOVQ AX, 56(DX)       // the kind, and full = 0
	MOVQ R12, R9
	ADDQ $64, DX
	JMP  loop

tsbig:
	CMPL CX, $0xff
	JNE  done
	MOVL $0xffffffff, BX
	ADDQ $11, DI
	JMP  enterleave

tsother:
	LEAQ 9(DI), SI
	JMP  other

nots:
	MOVQ R9, R12
	LEAL -12(AX), CX
	CMPL CX, $1
	JA   notsother
	MOVBLZX 1(DI), CX
	CMPL CX, $4
	JA   notsbig
	MOVQ 2(DI), BX
	ANDQ (R11)(CX*8), BX
	LEAQ 2(DI)(CX*1), DI
	JMP  enterleave

notsbig:
	CMPL CX, $0xff
	JNE  done
	MOVL $0xffffffff, BX
	ADDQ $2, DI
	JMP  enterleave

notsother:
	MOVQ DI, SI

	// SI is at the kind byte: the records with a size byte
other:
	MOVBLZX 1(SI), CX
	CMPL CX, $0xff
	JEQ  done
	LEAQ 2(SI)(CX*1), R13
	CMPQ R13, R14
	JA   done
	ADDQ $2, SI
	CMPL AX, $14          // MpiSend
	JEQ  sendrecv
	CMPL AX, $18          // MpiRecv
	JEQ  sendrecv
	CMPL AX, $23          // MpiCollectiveEnd
	JEQ  collend
	CMPL AX, $31          // Metric
	JEQ  metric
	CMPL AX, $22          // MpiCollectiveBegin
	JNE  done
	MOVUPS X0, 16(DX)
	MOVUPS X0, 32(DX)
	MOVQ $0, 48(DX)
	JMP  otherend

sendrecv:
	COMP32(sr0big, sr0)
	MOVQ BX, 16(DX)
	COMP32(sr1big, sr1)
	MOVQ BX, 24(DX)
	COMP32(sr2big, sr2)
	MOVQ BX, 32(DX)
	COMP64(sr3big, sr3)
	MOVQ BX, 40(DX)
	MOVQ $0, 48(DX)
	JMP  otherend

collend:
	MOVBLZX (SI), BX
	MOVQ BX, 16(DX)
	INCQ SI
	COMP32(ce1big, ce1)
	MOVQ BX, 24(DX)
	COMP32(ce2big, ce2)
	MOVQ BX, 32(DX)
	COMP64(ce3big, ce3)
	MOVQ BX, 40(DX)
	COMP64(ce4big, ce4)
	MOVQ BX, 48(DX)
	JMP  otherend

metric:
	COMP32(me0big, me0)
	MOVQ BX, 16(DX)
	CMPB (SI), $1         // one member
	JNE  done
	MOVQ $1, 24(DX)
	MOVBLZX 1(SI), BX
	MOVQ BX, 32(DX)
	ADDQ $2, SI
	COMP64(me3big, me3)
	MOVQ BX, 40(DX)
	MOVQ $0, 48(DX)

otherend:
	CMPQ SI, R13          // the fields end within the record
	JA   done
	MOVQ R13, DI
	MOVQ R12, (DX)
	MOVQ AX, 56(DX)
	MOVQ R12, R9
	ADDQ $64, DX
	JMP  loop

	BIG32(sr0big, sr0)
	BIG32(sr1big, sr1)
	BIG32(sr2big, sr2)
	BIG64(sr3big, sr3)
	BIG32(ce1big, ce1)
	BIG32(ce2big, ce2)
	BIG64(ce3big, ce3)
	BIG64(ce4big, ce4)
	BIG32(me0big, me0)
	BIG64(me3big, me3)

done:
	MOVQ dst_base+40(FP), CX
	SUBQ CX, DX
	SHRQ $6, DX
	MOVQ DX, k+64(FP)
	SUBQ b_base+0(FP), DI
	MOVQ DI, next+72(FP)
	MOVQ R9, last+80(FP)
	RET
