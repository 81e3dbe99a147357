import type { Suggestion } from './diagnostic.js';
import type { PropertyPath, YamlFile } from './yaml-file.js';

/**
 * A did-you-mean's word: `word` (as written) at `index` of the string value at a path, or the key
 * naming it (`key`), is meant to be `text`.
 */
export interface Meant {
  readonly word: string;
  readonly text: string;
  readonly index?: number;
  readonly key?: boolean;
}

/** Where the misspelt word of a did-you-mean is in the file, as a finding's `suggestion`. */
export function suggestionAt(yaml: YamlFile, path: PropertyPath, meant: Meant): Suggestion {
  if (meant.key) {
    const at = yaml.locate(path, { key: true });
    // A quoted key's place is its opening quote; the word starts after it.
    const quoted = /^["']/.test(lineOf(yaml.text, at.line).slice(at.col - 1));
    return { line: at.line, col: at.col + (quoted ? 1 : 0), length: meant.word.length, text: meant.text };
  }
  const at = yaml.locateInValue(path, meant.index ?? 0);
  return { line: at.line, col: at.col, length: meant.word.length, text: meant.text };
}

function lineOf(text: string, line: number): string {
  return text.split('\n', line)[line - 1] ?? '';
}
