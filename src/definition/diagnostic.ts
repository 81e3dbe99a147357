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
}

export function diagnostic(
  code: RuleCode,
  message: string,
  at: { file: string; line: number; col: number },
): Diagnostic {
  return { file: at.file, line: at.line, col: at.col, severity: RULES[code].severity, code, message };
}

/** `path:line:col: severity CODE: message`, the format editors and CI annotators understand. */
export function formatDiagnostic(d: Diagnostic): string {
  // Escaped: file names and YAML keys are the author's text and must not drive the terminal.
  return printable(`${d.file}:${d.line}:${d.col}: ${d.severity} ${d.code}: ${d.message}`);
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    (a.file === b.file ? 0 : COLLATOR.compare(a.file, b.file)) ||
    a.line - b.line ||
    a.col - b.col ||
    COLLATOR.compare(a.code, b.code)
  );
}

/** `localeCompare`'s order, with one collator made once (each `localeCompare` looks one up). */
const COLLATOR = new Intl.Collator();
