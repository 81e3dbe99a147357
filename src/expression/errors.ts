import { RestfnError } from '../errors/restfn-error.js';
import type { ExpressionLimitKind } from './limits.js';

/** Where an expression sits: the file, the property path inside it, and the line/column. */
export interface ExpressionLocation {
  readonly file?: string;
  readonly path?: string;
  readonly line?: number;
  readonly col?: number;
}

/**
 * An expression written by the app author failed to compile or evaluate. JSONata throws plain objects
 * (`code`, `position`, `token`); they are wrapped here so the JSONata code and the position in the
 * expression survive, next to the file location.
 */
export class ExpressionError extends RestfnError {
  /** JSONata's own error code, for example `S0201`. */
  readonly jsonataCode: string | undefined;
  /** The token JSONata names with its code (`@` for S0214), if it names one. */
  readonly token: string | undefined;
  /** Zero-based index inside the expression as written (after the `=`). */
  readonly index: number | undefined;
  readonly location: ExpressionLocation;
  /** The message without the location prefix. */
  readonly detail: string;
  /** The resource limit the evaluation ran into (texts too long, nesting too deep), if that was it. */
  readonly limit: ExpressionLimitKind | undefined;

  constructor(
    code: ExpressionErrorCode,
    message: string,
    details: {
      jsonataCode?: string;
      token?: string;
      index?: number;
      location?: ExpressionLocation;
      cause?: unknown;
      limit?: ExpressionLimitKind;
    },
  ) {
    const where = formatLocation(details.location);
    super(code, where ? `${where}: ${message}` : message, { cause: details.cause });
    this.jsonataCode = details.jsonataCode;
    this.token = details.token;
    this.index = details.index;
    this.location = details.location ?? {};
    this.detail = message;
    this.limit = details.limit;
  }
}

/** `EXPRESSION_TOO_DEEP`: the expression nests deeper than restfn parses (also a validation rule). */
export type ExpressionErrorCode = 'EXPRESSION_SYNTAX' | 'EXPRESSION_TOO_DEEP' | 'EXPRESSION_EVALUATION';

function formatLocation(location: ExpressionLocation | undefined): string {
  if (!location?.file) return location?.path ?? '';
  const pos = location.line ? `:${location.line}:${location.col ?? 1}` : '';
  return `${location.file}${pos}${location.path ? ` (${location.path})` : ''}`;
}

/** The shape JSONata throws. */
export interface JsonataFailure {
  code?: string;
  position?: number;
  token?: unknown;
  message?: string;
}

export function isJsonataFailure(error: unknown): error is JsonataFailure {
  return typeof error === 'object' && error !== null && 'code' in error && 'message' in error;
}
