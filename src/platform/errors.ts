import { type ErrorCode, isErrorCode } from '../errors/codes.js';
import { RestfnError } from '../errors/restfn-error.js';

/** A refusal of the platform itself (authentication, permission, a bad request), with its code. */
export class PlatformError extends RestfnError {
  constructor(
    code: ErrorCode,
    message: string,
    /** Extra fields for the answer's body (findings of a refused publish). */
    readonly extra?: Readonly<Record<string, unknown>>,
    /** Seconds to wait before trying again: the answer's `Retry-After` header (a 429, a 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(code, message);
  }
}

/** The error as the API shows it: its code, its message, and what it carries for a screen. */
export function errorBody(error: RestfnError): Record<string, unknown> {
  const e = error as RestfnError & {
    title?: string;
    description?: string;
    details?: string;
    correlationId?: string;
    status?: number;
    alert?: unknown;
    extra?: Record<string, unknown>;
  };
  return {
    status: 'error',
    code: isErrorCode(e.code) ? e.code : 'INTERNAL',
    message: e.message,
    ...(e.title !== undefined ? { title: e.title } : {}),
    ...(e.description !== undefined ? { description: e.description } : {}),
    ...(e.details !== undefined ? { details: e.details } : {}),
    ...(typeof e.status === 'number' ? { remoteStatus: e.status } : {}),
    ...(e.correlationId !== undefined ? { correlationId: e.correlationId } : {}),
    ...(e.alert !== undefined ? { alert: e.alert } : {}),
    ...(e.extra ?? {}),
  };
}
