import type { ErrorCode } from './codes.js';
import { RestfnError } from './restfn-error.js';

/** A credential a function names could not be used (exit code 4). */
export class CredentialError extends RestfnError {
  /** The credential key concerned, when there is one (for example the one that needs a login). */
  readonly credential: string | undefined;

  constructor(code: ErrorCode, message: string, credential?: string) {
    super(code, message);
    this.credential = credential;
  }
}
