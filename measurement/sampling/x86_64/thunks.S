/*
 * The return thunk of the thunk stack (measurement/sampling/thunks.h), for x86_64.
 *
 * A function whose return address slot was thunked returns here, with %rsp one word
 * above that slot. The thunk pops the thread's side stack down to the entry of that
 * slot (entries with lower slots belong to frames left by longjmp or an exception) and
 * jumps to the original return address. It only uses registers that no return value
 * lives in (%rcx, %rsi, %rdi, %r11), so %rax, %rdx, %xmm0-1 and %st reach the caller.
 *
 * It has no unwind information on purpose: unwinders stop at it (libgcc reports the end
 * of the stack), and hpmeasure's own unwinder recognises it by its address.
 */
	.text
	.p2align 4
	/* padding: the byte before the thunk is not the end of a call instruction */
	int3
	.globl	hp__thunk
	.hidden	hp__thunk
	.type	hp__thunk, @function
hp__thunk:
	movq	hp__thunk_stack@GOTTPOFF(%rip), %r11
	movq	%fs:(%r11), %r11		/* the thread's hp_thunk_stack */
	movq	(%r11), %rcx			/* count */
	leaq	-8(%rsp), %rdi			/* the slot this return came through */
1:	testq	%rcx, %rcx
	jz	2f
	decq	%rcx
	movq	%rcx, %rsi
	shlq	$4, %rsi			/* sizeof(hp_thunk_entry) == 16 */
	cmpq	%rdi, 48(%r11,%rsi)		/* entries[rcx].slot */
	jb	1b				/* below %rsp: a frame that is gone */
	jne	2f
	movq	%rcx, (%r11)
	jmpq	*56(%r11,%rsi)			/* entries[rcx].ra */
2:	call	hp__thunk_lost			/* no entry for this slot: cannot go on */
	ud2
	.globl	hp__thunk_end
	.hidden	hp__thunk_end
hp__thunk_end:
	.size	hp__thunk, hp__thunk_end - hp__thunk
	.section .note.GNU-stack,"",@progbits
