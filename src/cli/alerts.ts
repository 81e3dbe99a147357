import { printable } from '../errors/printable.js';
import type { ExecutionEvent } from '../runtime/events.js';

/** Alerts go to stderr on every command that executes functions (spec 7.2: the user sees them). */
export function printAlert(event: ExecutionEvent): void {
  if (event.type !== 'alert') return;
  const { alert } = event;
  const count = alert.count > 1 ? ` (x${alert.count})` : '';
  const text = alert.description ? `${alert.title}: ${alert.description}` : alert.title;
  process.stderr.write(`${printable(`restfn: alert [${alert.presentAs}] ${text}${count}`)}\n`);
}
