import type { SourceFile } from '../definition/solution.js';

/** The commands `restfn lsp` runs (`workspace/executeCommand`), and the lenses name. */
export const COMMANDS = {
  /** `[function]`: the function called with its parameters' defaults; the answer shown as a document. */
  run: 'restfn.run',
  /** `[datasource]`: the local database filled, as `restfn sync`. */
  sync: 'restfn.sync',
  /** No arguments: every file's findings published; their counts answered. */
  validate: 'restfn.validate',
  /** No arguments: the saved solution published, as `restfn publish`. */
  publish: 'restfn.publish',
  /** `[command]`: a terminal command shown for the author to run (a quick fix's next step). */
  showCommand: 'restfn.showCommand',
} as const;

export type CommandName = (typeof COMMANDS)[keyof typeof COMMANDS];

/** A lens: a command offered above a line (0-based). */
export interface Lens {
  readonly line: number;
  readonly title: string;
  readonly command: CommandName;
  readonly arguments: readonly string[];
}

/**
 * The lenses of a file, above its first line of content (after leading comments): Run and Publish
 * on a function, Sync on a datasource, Validate solution (and Publish) on solution.yaml. Actions
 * get none: an action runs on a screen's record (`restfn action`), with no defaults to run it with.
 */
export function codeLenses(file: SourceFile): Lens[] {
  const line = firstContentLine(file.yaml.text);
  switch (file.kind) {
    case 'function':
      return [
        { line, title: '▶ Run', command: COMMANDS.run, arguments: [file.name] },
        { line, title: 'Publish solution', command: COMMANDS.publish, arguments: [] },
      ];
    case 'datasource':
      return [{ line, title: '⟳ Sync', command: COMMANDS.sync, arguments: [file.name] }];
    case 'solution':
      return [
        { line, title: '✓ Validate solution', command: COMMANDS.validate, arguments: [] },
        { line, title: 'Publish solution', command: COMMANDS.publish, arguments: [] },
      ];
    default:
      return [];
  }
}

function firstContentLine(text: string): number {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  return at === -1 ? 0 : at;
}
