// The table alone, without the error classes exitCodeFor needs: main.ts and interrupt.ts use it at
// start-up, before anything failed.

/** The documented exit codes, used by every command. Errors become exit codes here and only here. */
export const EXIT = {
  /** Success. */
  OK: 0,
  /** The function ran and ended in an error (remote error, network failure, timeout). */
  FUNCTION_FAILED: 1,
  /** Wrong usage: unknown option, bad argument, no solution found, file exists. */
  USAGE: 2,
  /** Invalid definitions: validation found errors, or an expression is broken. */
  INVALID_DEFINITION: 3,
  /** Missing or unusable credentials. */
  CREDENTIALS: 4,
  /** A bug in restfn: an error it did not expect (`INTERNAL`); sysexits' EX_SOFTWARE. */
  INTERNAL: 70,
  /** Stopped by Ctrl-C (SIGINT): 128 + the signal number, as shells report it. */
  INTERRUPTED: 130,
} as const;
