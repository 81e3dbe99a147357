import { RestfnError } from '../errors/restfn-error.js';

/** A file or folder the command needed could not be read or written (exit code 2). */
export class FileError extends RestfnError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('FILE_ERROR', message, options);
  }
}

/** Ctrl-C: the command stopped; what was kept has been printed (exit code 130). */
export class InterruptedError extends RestfnError {
  constructor(message: string) {
    super('INTERRUPTED', message);
  }
}

/** An error restfn did not expect: a bug, printed with a code and a hint (exit code 70). */
export class InternalError extends RestfnError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INTERNAL', message, options);
  }
}
