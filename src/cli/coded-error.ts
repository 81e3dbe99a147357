import { RestfnError } from '../errors/restfn-error.js';
import { classifyDatabaseFailure, DatabaseError } from '../local/errors.js';
import { ParameterError } from '../runtime/errors.js';
import { FileError, InternalError } from './errors.js';

const MESSAGE_LIMIT = 300;

/**
 * Every failure the CLI prints has a stable code. restfn's own errors carry one; what escapes from
 * the engines underneath gets one here, by kind: a file-system error (it names the path and the
 * operation), a SQLite error (a database problem), else INTERNAL, which says it is a bug. A pure
 * decision: the caller prints and exits. `command` is the subcommand that ran (`run`, `sync`, ...).
 */
export function codedError(error: unknown, command?: string): RestfnError {
  if (error instanceof ParameterError && error.code === 'PARAMETER_REQUIRED' && error.missing.length > 0) {
    // The library says what is missing; how to give it is the CLI's to say, by command: `run`
    // takes -p, a sync's values come from its datasource file, an action's from its action file.
    const how =
      command === 'run'
        ? `pass ${error.missing.map((n) => `-p ${n}=VALUE`).join(' ')}`
        : command === 'sync'
          ? "give it in the datasource's functionParameters"
          : command === 'action' || command === 'push'
            ? "give it in the action's parameters"
            : undefined;
    if (how === undefined) return error;
    return new ParameterError(
      'PARAMETER_REQUIRED',
      error.parameter,
      `${error.message}; ${how}`,
      error.missing,
    );
  }
  if (error instanceof RestfnError) return error;
  const { code, syscall, path } = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && typeof syscall === 'string' && /^E[A-Z]+$/.test(code)) {
    const where = typeof path === 'string' ? ` ${path}` : '';
    return new FileError(
      `cannot ${syscall}${where} (${code}): check that the path exists and that you may read and write there`,
      { cause: error },
    );
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    const failure = classifyDatabaseFailure(code);
    return new DatabaseError(
      failure.code,
      `the local database ${failure.problem}: ${bounded(message)}; ${failure.fix}`,
      undefined,
      { cause: error },
    );
  }
  const name = error instanceof Error ? error.name : typeof error;
  return new InternalError(
    `restfn did not expect this (${name}: ${bounded(message)}); it is a bug: rerun with RESTFN_DEBUG=1 to see where it happened, and report it`,
    { cause: error },
  );
}

function bounded(text: string): string {
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}...` : text;
}
