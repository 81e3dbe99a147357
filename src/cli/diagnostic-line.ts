import { type Diagnostic, formatDiagnostic } from '../definition/diagnostic.js';
import { paint } from './output.js';

// Apart from output.ts, which every command loads at start-up (for --format): this one loads the
// rule table, wanted only by the commands that print findings.

/** A finding as `file:line:col: error CODE: message`, its severity coloured on a terminal. */
export function diagnosticLine(d: Diagnostic, stream: { isTTY?: boolean } = process.stderr): string {
  const { red, yellow } = paint(stream);
  return formatDiagnostic(d).replace(
    /^(\S+: )(error|warning)\b/,
    (_, at: string, severity: string) => at + (severity === 'error' ? red(severity) : yellow(severity)),
  );
}
