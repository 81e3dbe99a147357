// Types of browser-start.mjs for the tests that use it.
export interface BrowserOutput {
  readonly bytes: number;
  readonly entryPoint?: string;
  readonly inputs: Record<string, { bytesInOutput: number }>;
  readonly imports: ReadonlyArray<{ path: string; kind: string; external?: boolean }>;
}
export const ENTRIES: readonly string[];
export const UNCOUNTED: RegExp;
export function outputsOf(meta: unknown): Map<string, BrowserOutput>;
export function startFiles(meta: unknown): string[];
export function startSize(root: string): {
  files: Array<{ file: string; bytes: number; gzip: number }>;
  gzip: number;
  meta: unknown;
};
export function largestParts(
  meta: unknown,
  files: readonly string[],
  count?: number,
): Array<[string, number]>;
