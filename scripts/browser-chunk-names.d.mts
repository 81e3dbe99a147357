// Types of browser-chunk-names.mjs for the tests that use it.
export function packageOf(input: string): string | undefined;
export function groupOf(inputs: readonly string[]): string | undefined;
export function chunkRenames(metafile: {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}): Map<string, string>;
export function applyChunkRenames<M>(dir: string, metafile: M): M;
