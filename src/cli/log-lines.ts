import { Writable } from 'node:stream';
import { printable } from '../errors/printable.js';
import { paint } from './output.js';

const LEVELS: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** Fields every line has, or that the line's own words already say. */
const SHOWN = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'reqId',
  'method',
  'url',
  'statusCode',
  'ms',
]);

/**
 * `restfn serve` on a terminal: the platform's JSON log lines as a person reads them, one line
 * each: `12:03:04 info  GET /api/v1/me 200 1.2 ms` for a request, else the time, the level and the
 * message with the other fields as key=value. Anything that is not a JSON line passes as it is.
 * Redaction happened before (pino's redact paths), so nothing here can show a credential the JSON
 * would not.
 */
export function readableLog(out: NodeJS.WritableStream = process.stderr): Writable {
  const colours = paint(out as { isTTY?: boolean });
  let rest = '';
  return new Writable({
    write(chunk, _encoding, done) {
      const lines = (rest + String(chunk)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line !== '') out.write(`${readable(line, colours)}\n`);
      done();
    },
    final(done) {
      if (rest !== '') out.write(`${readable(rest, colours)}\n`);
      done();
    },
  });
}

export function readable(line: string, colours = paint(undefined)): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return printable(line);
  }
  if (typeof entry !== 'object' || entry === null) return printable(line);
  const time = typeof entry.time === 'number' ? new Date(entry.time).toTimeString().slice(0, 8) : '--:--:--';
  const level = LEVELS[entry.level as number] ?? String(entry.level);
  const tint =
    level === 'warn' ? colours.yellow : level === 'error' || level === 'fatal' ? colours.red : colours.dim;
  const what =
    entry.msg === 'request completed'
      ? `${entry.method} ${entry.url} ${entry.statusCode} ${typeof entry.ms === 'number' ? entry.ms.toFixed(1) : entry.ms} ms`
      : String(entry.msg ?? '');
  const extra = Object.entries(entry)
    .filter(([key]) => !SHOWN.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  // Escaped before the colour goes on: a logged value cannot drive the terminal, the colour can.
  return [time, tint(printable(level.padEnd(5))), printable([what, ...extra].join(' '))].join(' ');
}
