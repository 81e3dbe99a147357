import { printable } from '../errors/printable.js';
import type { ExecutionEvent } from '../runtime/events.js';

/** `--verbose`: requests and responses as they happen, to stderr; the runtime masked them already. */
export function trace(event: ExecutionEvent): void {
  const lines: string[] = [];
  if (event.type === 'request') {
    lines.push(
      `> ${event.method} ${event.url}`,
      ...Object.entries(event.headers).map(([k, v]) => `> ${k}: ${v}`),
    );
    if (event.body !== undefined) lines.push(...prefixed('> ', event.body));
  } else if (event.type === 'response') {
    lines.push(
      `< ${event.status} (${event.durationMs.toFixed(0)} ms)`,
      ...Object.entries(event.headers).map(([k, v]) => `< ${k}: ${v}`),
    );
    if (event.body !== '') lines.push(...prefixed('< ', event.body));
  } else if (event.type === 'failed') {
    lines.push(`! ${event.code} [${event.correlationId}]`);
  } else if (event.type === 'console') {
    lines.push(...prefixed(`# ${event.function} console.${event.level}: `, event.message));
  } else if (event.type === 'succeeded') {
    lines.push(`= done in ${event.durationMs.toFixed(0)} ms [${event.correlationId}]`);
  }
  for (const line of lines) process.stderr.write(`${printable(line)}\n`);
}

/** Every retry, with or without --verbose: which attempt comes next, after how long, and why. */
export function printRetry(event: ExecutionEvent): void {
  if (event.type !== 'retried') return;
  process.stderr.write(`${retryLine(event)}\n`);
}

export function retryLine(event: Extract<ExecutionEvent, { type: 'retried' }>): string {
  return `restfn: retry: ${event.function}: attempt ${event.attempt} in ${duration(event.delayMs)} (${event.reason}; the last attempt ${printable(event.cause)})`;
}

/** `250 ms`, `1.5 s`, `60 s`: a wait as a person reads it. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** A body split into lines, each behind the trace marker (other control characters are escaped). */
function prefixed(marker: string, text: string): string[] {
  return text.split(/\r?\n/).map((line) => `${marker}${line}`);
}
