import { setFlagsFromString } from 'node:v8';

/*
 * LiteSVM's x86-64 JIT (solana-sbpf 0.13, its `callx` sequence) uses the MMX register mm0 as a
 * scratch register and never executes EMMS, so after any program has run, the x87 register stack
 * of the calling thread is full (see libs/solana-localnet/README.md). Node's own x87 code then computes garbage:
 * a float `%` in JavaScript returns NaN, and V8's allocation-site pretenuring sizes a hash table
 * from NaN on the next full GC and aborts the process with `std::bad_alloc`. JavaScript can
 * neither execute EMMS nor keep LiteSVM off the JIT, so instead:
 *  - pretenuring (the GC pass with three-deep x87 code) is switched off for the process, and
 *  - after every call that may run a program, one float modulo pushes and pops two x87 slots,
 *    which empties them again for the two-deep x87 code that JavaScript arithmetic reaches.
 */

let pretenuringDisabled = false;

/** Makes this process safe for LiteSVM's JIT; called once before the first LiteSVM is built. */
export function disablePretenuring(): void {
  if (pretenuringDisabled) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
  pretenuringDisabled = true;
}

// Operands read from an array and the result stored on an object, so V8 neither folds nor drops the modulo.
const operands = [1.5, 1];
const scrubSink = { result: 0 };

/** Runs a LiteSVM call that may execute a program, then frees the x87 slots the JIT left full. */
export function withFpuScrub<T>(run: () => T): T {
  try {
    return run();
  } finally {
    // The result is NaN by design (the stack was full); the side effect on the FPU is the point.
    scrubSink.result = operands[0] % operands[1];
  }
}
