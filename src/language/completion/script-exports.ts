/** A function an expression script exports: `$<script>.<name>(...)` in expressions. */
export interface ScriptExport {
  readonly name: string;
  /** Its parameters as written (`invoiceInfo, currency`); undefined when not seen (`export { f }`). */
  readonly parameters?: string;
}

/**
 * The exported names of a script, read from its text (never run: the language service must not
 * execute an author's code): `export function f(a)`, `export async function`, `export const f =`,
 * `export { f, g as h }`. Comments are dropped first; a name made some other way is not seen.
 */
export function scriptExports(source: string): ScriptExport[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const found = new Map<string, ScriptExport>();
  const declared = new Map<string, string>();
  for (const m of text.matchAll(/\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(([^)]*)\)/g))
    declared.set(m[1]!, m[2]!.trim().replace(/\s+/g, ' '));
  for (const m of text.matchAll(
    /\bexport\s+(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(([^)]*)\)/g,
  ))
    found.set(m[1]!, { name: m[1]!, parameters: m[2]!.trim().replace(/\s+/g, ' ') });
  for (const m of text.matchAll(
    /\bexport\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(\(([^)]*)\)|[A-Za-z_$][\w$]*\s*=>)?/g,
  )) {
    const parameters = m[3] ?? (m[2] ? m[2].replace(/\s*=>$/, '') : undefined);
    found.set(m[1]!, { name: m[1]!, ...(parameters !== undefined ? { parameters: parameters.trim() } : {}) });
  }
  for (const m of text.matchAll(/\bexport\s*\{([^}]*)\}/g))
    for (const part of m[1]!.split(',')) {
      const [local, alias] = part.trim().split(/\s+as\s+/);
      const name = (alias ?? local)?.trim();
      if (!name || !/^[A-Za-z_$][\w$]*$/.test(name) || name === 'default') continue;
      const parameters = declared.get(local!.trim());
      found.set(name, { name, ...(parameters !== undefined ? { parameters } : {}) });
    }
  return [...found.values()];
}
