/* SPDX-License-Identifier: BSD-2-Clause */
/* aarch64 functions for tests/kernel/check_stacktrace_a64.c: frame records,
 * frameless leaves, prologues and epilogues, with explicit call-frame
 * information, so the CFA rule at each instruction is fixed by this file.
 * Assembled and linked with the cross compiler at 0x40200000 (where the
 * arm64 kernel is linked), then tools/kp-symgen makes its table; the
 * host test walks stacks built as this code would leave them.  Never run.
 *
 * Every instruction is 4 bytes: the offsets in the comments are the ones
 * the test names (FUNC+0x..), and the rule there.  "lr" means the return
 * address is still in x30; "CFA-8" means saved at CFA - 8. */

#define FUNC(name) .globl name; .type name, %function; .p2align 2; name:
#define END(name) .size name, . - name

	.text

/* The grandparent: calls kpa_caller; its return address kpa_outer+0xc. */
FUNC(kpa_outer)
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	bl	kpa_caller		/* +0x8 */
	ldp	x29, x30, [sp], #16	/* +0xc */
	.cfi_restore x30
	.cfi_restore x29
	.cfi_def_cfa sp, 0
	ret
	.cfi_endproc
END(kpa_outer)

/* The caller of every frame-0 function; its return address kpa_caller+0xc. */
FUNC(kpa_caller)
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	bl	kpa_leaf		/* +0x8 */
	ldp	x29, x30, [sp], #16	/* +0xc */
	.cfi_restore x30
	.cfi_restore x29
	.cfi_def_cfa sp, 0
	ret
	.cfi_endproc
END(kpa_caller)

/* A leaf: no frame anywhere.  sp + 0, lr throughout. */
FUNC(kpa_leaf)
	.cfi_startproc
	mov	w0, #1			/* +0x0 */
	ret				/* +0x4 */
	.cfi_endproc
END(kpa_leaf)

/* Prologue and epilogue of a framed function. */
FUNC(kpa_framed)
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!	/* +0x0: sp + 0, lr */
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp			/* +0x4: sp + 16, CFA-8: pushed, fp not moved */
	.cfi_def_cfa_register x29
	nop				/* +0x8: fp + 16, frame set up */
	ldp	x29, x30, [sp], #16	/* +0xc: fp + 16, on the restore */
	.cfi_restore x30
	.cfi_restore x29
	.cfi_def_cfa sp, 0
	ret				/* +0x10: sp + 0, lr: torn down */
	.cfi_endproc
END(kpa_framed)

/* A leaf that moves the stack pointer: sp + 0, then sp + 32, lr always. */
FUNC(kpa_leaf_sub)
	.cfi_startproc
	sub	sp, sp, #32		/* +0x0: sp + 0 */
	.cfi_def_cfa_offset 32
	nop				/* +0x4: sp + 32, lr */
	add	sp, sp, #32		/* +0x8: sp + 32 */
	.cfi_def_cfa_offset 0
	ret				/* +0xc: sp + 0 */
	.cfi_endproc
END(kpa_leaf_sub)

/* A frame with locals above its record (stp pre-index by 48): the return
 * address at CFA - 40, not CFA - 8. */
FUNC(kpa_framed_big)
	.cfi_startproc
	stp	x29, x30, [sp, #-48]!	/* +0x0: sp + 0, lr */
	.cfi_def_cfa_offset 48
	.cfi_offset x29, -48
	.cfi_offset x30, -40
	mov	x29, sp			/* +0x4: sp + 48, CFA-40 */
	.cfi_def_cfa_register x29
	nop				/* +0x8: fp + 48 */
	ldp	x29, x30, [sp], #48	/* +0xc */
	.cfi_restore x30
	.cfi_restore x29
	.cfi_def_cfa sp, 0
	ret
	.cfi_endproc
END(kpa_framed_big)

/* The record above the locals (gcc with a large frame): sub, then the
 * pair stored at the top, then fp pointed at it. */
FUNC(kpa_framed_top)
	.cfi_startproc
	sub	sp, sp, #48		/* +0x0: sp + 0, lr */
	.cfi_def_cfa_offset 48
	stp	x29, x30, [sp, #32]	/* +0x4: sp + 48, lr */
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	add	x29, sp, #32		/* +0x8: sp + 48, CFA-8 */
	.cfi_def_cfa x29, 16
	nop				/* +0xc: fp + 16 */
	ldp	x29, x30, [sp, #32]	/* +0x10 */
	.cfi_restore x30
	.cfi_restore x29
	.cfi_def_cfa sp, 48
	add	sp, sp, #48		/* +0x14: sp + 48, lr */
	.cfi_def_cfa_offset 0
	ret				/* +0x18: sp + 0, lr */
	.cfi_endproc
END(kpa_framed_top)

/* A synthetic exception entry, as arch/arm64/entry.S's: the trap frame
 * at sp, its handler called with x29 = the frame + 1, so that the
 * handler's frame record leads the walk into the interrupted state.  No
 * call-frame information, as the kernel's entry declares none.  Return
 * address kpa_exc_entry+0x8. */
FUNC(kpa_exc_entry)
	add	x29, sp, #1		/* +0x0 */
	bl	kpa_handler		/* +0x4 */
	ret				/* +0x8 */
END(kpa_exc_entry)

/* The exception's handler, framed: +0x8 is inside its frame. */
FUNC(kpa_handler)
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	nop				/* +0x8: fp + 16 */
	ldp	x29, x30, [sp], #16
	.cfi_restore x30
	.cfi_restore x29
	.cfi_def_cfa sp, 0
	ret
	.cfi_endproc
END(kpa_handler)

/* Hand-written code that declares no call-frame information. */
FUNC(kpa_nocfi)
	nop				/* +0x0: unknown */
	ret
END(kpa_nocfi)

	.section .note.GNU-stack, "", %progbits
