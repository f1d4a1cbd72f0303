/* SPDX-License-Identifier: BSD-2-Clause */
/* Functions for the frame-0 tests (tests/kernel/check_stacktrace.c): leaves,
 * prologues and epilogues with explicit call-frame information, so the
 * CFA rule at each labelled instruction is fixed by this file and not by
 * the optimizer.  The labels (kpt_*_<state>) name the instructions a trap
 * frame is built at; the comment on each says the CFA rule there.  Never
 * run: the tests build the stack each state would have. */
#if defined(__x86_64__)

/* FUNC(name): a global function symbol; LABEL(name): a global label
 * (NOTYPE, which the generator does not take for a function). */
#define FUNC(name) .globl name; .type name, @function; name:
#define END(name) .size name, . - name
#define LABEL(name) .globl name; name:

	.text
	.p2align 4

/* The grandparent: calls kpt_caller.  Return address kpt_outer_ret. */
FUNC(kpt_outer)
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	call	kpt_caller
LABEL(kpt_outer_ret)
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
END(kpt_outer)

/* The caller of every frame-0 function.  Return address kpt_caller_ret. */
FUNC(kpt_caller)
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	call	kpt_leaf
LABEL(kpt_caller_ret)
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
END(kpt_caller)

/* A leaf: no frame anywhere.  CFA = rsp + 8 throughout. */
FUNC(kpt_leaf)
	.cfi_startproc
	movl	$1, %eax
LABEL(kpt_leaf_ret)
	ret
	.cfi_endproc
END(kpt_leaf)

/* Prologue and epilogue of a framed function. */
FUNC(kpt_framed)			/* rsp + 8 */
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
LABEL(kpt_framed_pushed)		/* rsp + 16: pushed, fp not yet moved */
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
LABEL(kpt_framed_body)			/* rbp + 16 */
	nop
LABEL(kpt_framed_pop)			/* rbp + 16, on the pop */
	popq	%rbp
	.cfi_def_cfa %rsp, 8
LABEL(kpt_framed_ret)			/* rsp + 8: torn down, on the ret */
	ret
	.cfi_endproc
END(kpt_framed)

/* A leaf that moves the stack pointer: rsp + 8, then rsp + 32. */
FUNC(kpt_leaf_sub)
	.cfi_startproc
	subq	$24, %rsp
	.cfi_def_cfa_offset 32
LABEL(kpt_leaf_sub_body)		/* rsp + 32 */
	nop
	addq	$24, %rsp
	.cfi_def_cfa_offset 8
LABEL(kpt_leaf_sub_ret)			/* rsp + 8 */
	ret
	.cfi_endproc
END(kpt_leaf_sub)

/* A synthetic interrupt entry, as arch/x86_64/entry.S's: the trap frame
 * at %rsp, its handler called with %rbp = the frame + 1, so that the
 * handler's frame record leads the walk into the interrupted state.  No
 * call-frame information, as the kernel's entry declares none.  Return
 * address kpt_isr_ret. */
FUNC(kpt_isr_entry)
	leaq	1(%rsp), %rbp
	call	kpt_handler
LABEL(kpt_isr_ret)
	ret
END(kpt_isr_entry)

/* The interrupt's handler, framed: kpt_handler_body is inside its frame
 * (rbp + 16). */
FUNC(kpt_handler)
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
LABEL(kpt_handler_body)
	nop
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
END(kpt_handler)

/* Hand-written code that declares no call-frame information. */
FUNC(kpt_nocfi)
	nop
LABEL(kpt_nocfi_ret)
	ret
END(kpt_nocfi)

/* A gap no symbol covers. */
LABEL(kpt_gap)
	.skip	16, 0xcc

/* A call that is the last instruction of its function: its return
 * address is the first byte of the next function. */
FUNC(kpt_noreturn_caller)
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	call	kpt_leaf
	.cfi_endproc
END(kpt_noreturn_caller)

FUNC(kpt_after)
	.cfi_startproc
	ret
	.cfi_endproc
END(kpt_after)

/* Aliases at one address: the global one of the pair is kept, whatever
 * the order the symbol table lists them in. */
	.globl	kpt_alias_global
	.type	kpt_alias_global, @function
	.type	kpt_alias_local, @function
FUNC(kpt_alias_weak)
	.weak	kpt_alias_weak
kpt_alias_local:
kpt_alias_global:
	.cfi_startproc
	ret
	.cfi_endproc
END(kpt_alias_weak)
	.size	kpt_alias_local, . - kpt_alias_local
	.size	kpt_alias_global, . - kpt_alias_global

/* A function without a size runs to the next symbol. */
	.globl	kpt_unsized
	.type	kpt_unsized, @function
kpt_unsized:
	nop
	nop
	ret
FUNC(kpt_last)
	ret
END(kpt_last)

#endif

	.section .note.GNU-stack, "", @progbits
