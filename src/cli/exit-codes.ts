import { CommanderError } from 'commander';
import { SolutionNotFoundError } from '../definition/solution.js';
import { DefinitionError } from '../errors/definition-error.js';
import { RestfnError, UsageError } from '../errors/restfn-error.js';
import { ExpressionError } from '../expression/errors.js';

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
} as const;

/** Error codes of credential failures; the authentication issue adds its codes here. */
const CREDENTIAL_CODES = new Set<string>();

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  if (error instanceof UsageError || error instanceof SolutionNotFoundError) return EXIT.USAGE;
  if (error instanceof DefinitionError || error instanceof ExpressionError) return EXIT.INVALID_DEFINITION;
  if (error instanceof RestfnError && CREDENTIAL_CODES.has(error.code)) return EXIT.CREDENTIALS;
  return EXIT.FUNCTION_FAILED;
}
