import { join } from 'node:path';
import { type Diagnostic, formatDiagnostic } from '../definition/diagnostic.js';
import type { RuleCode } from '../definition/rule-codes.js';
import { displayPath } from '../definition/solution.js';

/**
 * The findings a platform answered for a publish that the local validation did not already
 * print (the server knows more: its ceilings' `SETTING_CAPPED`, rules of a newer restfn), as
 * local findings: paths relative to the working folder as `loadSolution` shows them (the server's
 * are relative to the solution's root). A finding counts as printed when its place, severity and
 * code are a local one's; entries that are no finding (another server's answer) are left out.
 */
export function unseenFindings(
  answered: unknown,
  local: readonly Diagnostic[],
  root: string,
  displayBase: string = process.cwd(),
): Diagnostic[] {
  if (!Array.isArray(answered)) return [];
  const printed = new Set(local.map(keyOf));
  const unseen: Diagnostic[] = [];
  for (const f of answered as Array<Record<string, unknown>>) {
    if (!isFinding(f)) continue;
    const d: Diagnostic = {
      file: displayPath(join(root, f.file), displayBase),
      line: f.line,
      col: f.col,
      severity: f.severity,
      code: f.code as RuleCode,
      message: f.message,
    };
    const key = keyOf(d);
    if (printed.has(key)) continue;
    printed.add(key);
    unseen.push(d);
  }
  return unseen;
}

function keyOf(d: Diagnostic): string {
  return formatDiagnostic({ ...d, message: '' });
}

function isFinding(f: unknown): f is Omit<Diagnostic, 'code'> & { code: string } {
  const r = f as Record<string, unknown> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.file === 'string' &&
    Number.isInteger(r.line) &&
    Number.isInteger(r.col) &&
    (r.severity === 'error' || r.severity === 'warning') &&
    typeof r.code === 'string' &&
    typeof r.message === 'string'
  );
}
