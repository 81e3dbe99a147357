import { printable } from '../errors/printable.js';
import { RULES, type RuleCode, type Severity } from './rule-codes.js';

/** One finding of validation, pointing into a file (1-based line and column). */
export interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly severity: Severity;
  readonly code: RuleCode;
  readonly message: string;
  /** A did-you-mean as an edit (an editor's quick fix); the message says it too. */
  readonly suggestion?: Suggestion;
}

/**
 * The misspelt word a finding's did-you-mean is about: `length` characters at `line:col` (1-based,
 * as the finding's own place, which may be the start of a longer path) are meant to be `text`.
 */
export interface Suggestion {
  readonly line: number;
  readonly col: number;
  readonly length: number;
  readonly text: string;
}

export function diagnostic(
  code: RuleCode,
  message: string,
  at: { file: string; line: number; col: number },
  suggestion?: Suggestion,
): Diagnostic {
  const found = { file: at.file, line: at.line, col: at.col, severity: RULES[code].severity, code, message };
  return suggestion ? { ...found, suggestion } : found;
}

/** `path:line:col: severity CODE: message`, the format editors and CI annotators understand. */
export function formatDiagnostic(d: Diagnostic): string {
  // Escaped: file names and YAML keys are the author's text and must not drive the terminal.
  return printable(`${d.file}:${d.line}:${d.col}: ${d.severity} ${d.code}: ${d.message}`);
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    (a.file === b.file ? 0 : collator().compare(a.file, b.file)) ||
    a.line - b.line ||
    a.col - b.col ||
    collator().compare(a.code, b.code)
  );
}

/**
 * `localeCompare`'s order, with one collator made once (each `localeCompare` looks one up), when
 * two findings are first compared: making it loads ICU's collation data, which a command that
 * finds nothing (every `restfn run`) does not need (issue 41, start-up).
 */
let collatorMade: Intl.Collator | undefined;
const collator = (): Intl.Collator => (collatorMade ??= new Intl.Collator());
