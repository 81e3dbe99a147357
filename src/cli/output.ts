import { Option } from 'commander';
import { printable } from '../errors/printable.js';

/**
 * One set of output conventions for every command (issue 26): data on stdout, as a table for
 * people or JSON for programs (`--format table|json`); status, progress, warnings and errors on
 * stderr, coloured on a terminal.
 */

export type Format = 'table' | 'json';

/** `--format table|json`. `text`, the older name of `table` (validate, queue list), still works. */
export function formatOption(): Option {
  return new Option('--format <format>', 'table (for people) or json (for programs)')
    .choices(['table', 'json', 'text'])
    .default('table');
}

export function isJson(format: string | undefined): boolean {
  return format === 'json';
}

/** A column: its header and how a row shows in it. */
export type Column<T> = readonly [header: string, cell: (row: T) => unknown];

/**
 * Prints `rows`: as JSON (`json`), else as aligned columns under a header. An empty list prints
 * `[]` as JSON, and as a table nothing on stdout and `empty` on stderr (it is a status, not data).
 */
export function printRows<T>(
  format: string | undefined,
  rows: readonly T[],
  columns: ReadonlyArray<Column<T>>,
  empty: string,
  json: (row: T) => unknown = (row) => row,
): void {
  if (isJson(format)) {
    process.stdout.write(`${JSON.stringify(rows.map(json), null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    process.stderr.write(`restfn: ${empty}\n`);
    return;
  }
  process.stdout.write(table(rows, columns, paint(process.stdout)));
}

/** Prints one record (what a command made or changed): a JSON object, or a one-row table. */
export function printRecord<T>(
  format: string | undefined,
  record: T,
  columns: ReadonlyArray<Column<T>>,
): void {
  if (isJson(format)) process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
  else process.stdout.write(table([record], columns, paint(process.stdout)));
}

/** Aligned columns under a header (bold on a terminal); cells escaped, the last one not padded. */
export function table<T>(
  rows: readonly T[],
  columns: ReadonlyArray<Column<T>>,
  colours = paint(undefined),
): string {
  const all = rows.map((row) => columns.map(([, cell]) => printable(text(cell(row)))));
  // A column empty in every row (no OAuth credential's state, no token revoked) is left out.
  const shown = columns.map((_, i) => all.some((r) => r[i] !== ''));
  const cells = all.map((r) => r.filter((_, i) => shown[i]));
  const headers = columns.map(([header]) => header).filter((_, i) => shown[i]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${colours.bold(line(headers))}\n${cells.map((r) => `${line(r)}\n`).join('')}`;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.join(',');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Prints a report: JSON, or the text `human` gives. */
export function printReport(format: string | undefined, value: unknown, human: () => string): void {
  process.stdout.write(isJson(format) ? `${JSON.stringify(value, null, 2)}\n` : human());
}

/**
 * Colour for a stream: FORCE_COLOR (not `0`) turns it on and wins, as in Node; NO_COLOR (any
 * non-empty value, no-color.org) turns it off; otherwise on a terminal only (not TERM=dumb).
 */
export function colourOn(stream: { isTTY?: boolean } | undefined): boolean {
  const force = process.env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (process.env.NO_COLOR) return false;
  return stream?.isTTY === true && process.env.TERM !== 'dumb';
}

const SGR = (open: number, close: number) => (on: boolean) => (text: string) =>
  on ? `\u001b[${open}m${text}\u001b[${close}m` : text;
const RED = SGR(31, 39);
const YELLOW = SGR(33, 39);
const BOLD = SGR(1, 22);
const DIM = SGR(2, 22);

/** The colours for a stream (each the identity when colour is off there). */
export function paint(stream: { isTTY?: boolean } | undefined) {
  const on = colourOn(stream);
  return { red: RED(on), yellow: YELLOW(on), bold: BOLD(on), dim: DIM(on) };
}

/** `restfn: warning: ...` on stderr, the word in yellow on a terminal. */
export function warn(message: string): void {
  const { yellow } = paint(process.stderr);
  process.stderr.write(`restfn: ${yellow('warning')}: ${printable(message)}\n`);
}

/** A status line (what was done, what happens next): `restfn: ...` on stderr, never data. */
export function status(message: string): void {
  process.stderr.write(`restfn: ${printable(message)}\n`);
}
