import type { Diagnostic } from '../definition/diagnostic.js';
import { RestfnError } from './restfn-error.js';

/** The solution's definitions are invalid: carries the findings (exit code 3). */
export class DefinitionError extends RestfnError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(message: string, diagnostics: readonly Diagnostic[] = []) {
    super('INVALID_DEFINITION', message);
    this.diagnostics = diagnostics;
  }
}
