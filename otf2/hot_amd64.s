//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// The offsets of BatchEvent's fields and the package's constants come
// from go_asm.h, which the compiler writes from the Go declarations.
// What stays literal: the record encoding (a timestamp record is its
// kind byte and 8 bytes of time; an Enter or Leave is its kind byte and
// the region; other records a kind byte, a size byte and their fields),
// KindLeave = KindEnter+1, and two facts of BatchEvent that
// TestBatchEventLayout holds: its size is 1<<BatchEvent_shift bytes, and
// full lies after Kind within the 8 bytes from Kind, so one 8-byte store
// of the kind writes Kind and full = 0.
#define BatchEvent_shift 6

// decodeHot is decodeHotGo (batch.go) written out for amd64; see
// asm_amd64.go. Registers:
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

// COMP reads the compressed integer of at most max bytes at SI into BX,
// moves SI past it and stores BX at byte dst of the event's Vals; a size byte other than 0 to
// max and 0xff ends the loop (at big, out of line, which returns to
// back).
#define COMP(max, dst, big, back) \
	MOVBLZX (SI), CX \
	CMPL CX, $max \
	JA big \
	MOVQ 1(SI), BX \
	ANDQ (R11)(CX*8), BX \
	LEAQ 1(SI)(CX*1), SI \
back: \
	MOVQ BX, BatchEvent_Vals+dst(DX)

// BIG is the out-of-line part of COMP: the size byte 0xff stands for
// the value all, all ones of the integer's width, and no bytes.
#define BIG(big, back, all) \
big: \
	CMPL CX, $0xff \
	JNE done \
	MOVQ $all, BX \
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
	SUBQ $const_fastWindow, R8
	JB   done             // b shorter than a window
	ADDQ SI, R8
	SHLQ $BatchEvent_shift, R10
	ADDQ DX, R10
	LEAQ ·compMask(SB), R11
	PXOR X0, X0

loop:
	CMPQ DX, R10
	JAE  done
	CMPQ DI, R8
	JA   done
	MOVBLZX (DI), AX
	CMPL AX, $const_bTimestamp
	JNE  nots
	MOVQ 1(DI), R12
	MOVBLZX 9(DI), AX
	LEAL -const_KindEnter(AX), CX // Enter or Leave
	CMPL CX, $1
	JA   tsother
	MOVBLZX 10(DI), CX    // the region: a compressed 32-bit integer
	CMPL CX, $4
	JA   tsbig
	MOVQ 11(DI), BX
	ANDQ (R11)(CX*8), BX
	LEAQ 11(DI)(CX*1), DI

enterleave:
	MOVQ R12, BatchEvent_Time(DX)
	MOVQ BX, BatchEvent_Vals(DX)
	MOVUPS X0, BatchEvent_Vals+8(DX)
	MOVUPS X0, BatchEvent_Vals+24(DX)
	MOVQ AX, BatchEvent_Kind(DX) // the kind, and full = 0
	MOVQ R12, R9
	ADDQ $BatchEvent__size, DX
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
	LEAL -const_KindEnter(AX), CX
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
	CMPL AX, $const_KindMpiSend
	JEQ  sendrecv
	CMPL AX, $const_KindMpiRecv
	JEQ  sendrecv
	CMPL AX, $const_KindMpiCollectiveEnd
	JEQ  collend
	CMPL AX, $const_KindMetric
	JEQ  metric
	CMPL AX, $const_KindMpiCollectiveBegin
	JNE  done
	MOVUPS X0, BatchEvent_Vals(DX)
	MOVUPS X0, BatchEvent_Vals+16(DX)
	MOVQ $0, BatchEvent_Vals+32(DX)
	JMP  otherend

sendrecv:
	COMP(4, 0, sr0big, sr0)
	COMP(4, 8, sr1big, sr1)
	COMP(4, 16, sr2big, sr2)
	COMP(8, 24, sr3big, sr3)
	MOVQ $0, BatchEvent_Vals+32(DX)
	JMP  otherend

collend:
	MOVBLZX (SI), BX
	MOVQ BX, BatchEvent_Vals(DX)
	INCQ SI
	COMP(4, 8, ce1big, ce1)
	COMP(4, 16, ce2big, ce2)
	COMP(8, 24, ce3big, ce3)
	COMP(8, 32, ce4big, ce4)
	JMP  otherend

metric:
	COMP(4, 0, me0big, me0)
	CMPB (SI), $1         // one member
	JNE  done
	MOVQ $1, BatchEvent_Vals+8(DX)
	MOVBLZX 1(SI), BX
	MOVQ BX, BatchEvent_Vals+16(DX)
	ADDQ $2, SI
	COMP(8, 24, me3big, me3)
	MOVQ $0, BatchEvent_Vals+32(DX)

otherend:
	CMPQ SI, R13          // the fields end within the record
	JA   done
	MOVQ R13, DI
	MOVQ R12, BatchEvent_Time(DX)
	MOVQ AX, BatchEvent_Kind(DX)
	MOVQ R12, R9
	ADDQ $BatchEvent__size, DX
	JMP  loop

	BIG(sr0big, sr0, 0xffffffff)
	BIG(sr1big, sr1, 0xffffffff)
	BIG(sr2big, sr2, 0xffffffff)
	BIG(sr3big, sr3, -1)
	BIG(ce1big, ce1, 0xffffffff)
	BIG(ce2big, ce2, 0xffffffff)
	BIG(ce3big, ce3, -1)
	BIG(ce4big, ce4, -1)
	BIG(me0big, me0, 0xffffffff)
	BIG(me3big, me3, -1)

done:
	MOVQ dst_base+40(FP), CX
	SUBQ CX, DX
	SHRQ $BatchEvent_shift, DX
	MOVQ DX, k+64(FP)
	SUBQ b_base+0(FP), DI
	MOVQ DI, next+72(FP)
	MOVQ R9, last+80(FP)
	RET
