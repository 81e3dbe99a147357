import type { ErrorCode } from './codes.js';
import { RestfnError } from './restfn-error.js';

/** A credential a function names could not be used (exit code 4). */
export class CredentialError extends RestfnError {
  /** The credential key concerned, when there is one (for example the one that needs a login). */
  readonly credential: string | undefined;
  /**
   * A missing credential or login reaches the function's error handlers (runtime/call.ts): the
   * texts of the handler that matched, as on a failed call (CallError), else unset.
   */
  title: string | undefined;
  description: string | undefined;

  constructor(code: ErrorCode, message: string, credential?: string) {
    super(code, message);
    this.credential = credential;
  }

  /** What reporting found out (the alert raised...): non-enumerable, as a CallError's. */
  report(fields: Readonly<Record<string, unknown>>): void {
    for (const [name, value] of Object.entries(fields)) {
      Object.defineProperty(this, name, { value, enumerable: false, configurable: true });
    }
  }
}
