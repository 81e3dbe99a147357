import type { Alert } from '../errors/alerts.js';
import { printable } from '../errors/printable.js';
import type { ExecutionEvent } from '../runtime/events.js';

/** Alerts go to stderr on every command that executes functions (spec 7.2: the user sees them). */
export function printAlert(event: ExecutionEvent): void {
  if (event.type !== 'alert') return;
  process.stderr.write(`${alertLine(event.alert)}\n`);
}

/** A command this run queued and did not send, named by its call (`PUT https://.../items/{id}`). */
export interface QueuedCall {
  readonly action: string;
  readonly command: string;
  readonly call: string;
}

/**
 * An alert's line. With `behind`: the alert is an earlier queued command's (its function is none
 * of this run's), raised by the push that stopped before the command this run queued; the line
 * then names the user's command first, then the one it waits behind and why that one was not sent.
 */
export function alertLine(
  alert: Alert,
  behind?: { readonly queued: QueuedCall; readonly blocking: string | undefined },
): string {
  const count = alert.count > 1 ? ` (x${alert.count})` : '';
  const reason = alert.description ? `${alert.title}: ${alert.description}` : alert.title;
  const text = behind
    ? `${alert.title}: ${behind.queued.action}'s ${behind.queued.call} (command ${behind.queued.command}) is queued behind ${behind.blocking ? `command ${behind.blocking} ` : ''}(${alert.function}), which was not sent: ${alert.description ?? alert.title}`
    : reason;
  return printable(`restfn: alert [${alert.presentAs}] ${text}${count}`);
}
