/**
 * The editor's side of the palette commands (restfn.run, restfn.sync, restfn.validate,
 * restfn.publish). The server does the work (`workspace/executeCommand`); the extension only
 * names the current file and shows the answer's text. Nothing here decides anything about a
 * solution.
 */
export const PALETTE_COMMANDS: readonly string[] = [
  'restfn.run',
  'restfn.sync',
  'restfn.validate',
  'restfn.publish',
];

/**
 * The arguments sent: a code lens's own (it names its file), or `{ uri }` of the active editor's
 * file when run from the palette, which passes none.
 */
export function commandArguments(args: readonly unknown[], activeUri: string | undefined): unknown[] {
  if (args.length > 0) return [...args];
  return [activeUri ? { uri: activeUri } : {}];
}

/** A document to open for a command's result: its answer text, if it has one. */
export interface AnswerDocument {
  readonly content: string;
  readonly language: string;
}

/**
 * The result's text to open as an untitled document: a string result, or a result's `text`
 * (with `language`, default plain text). A result without text (the server showed it itself, as
 * with `window/showDocument`) opens nothing.
 */
export function answerDocument(result: unknown): AnswerDocument | undefined {
  if (typeof result === 'string') return result ? { content: result, language: 'plaintext' } : undefined;
  if (typeof result !== 'object' || result === null) return undefined;
  const { text, language } = result as { text?: unknown; language?: unknown };
  if (typeof text !== 'string' || text === '') return undefined;
  return { content: text, language: typeof language === 'string' && language ? language : 'plaintext' };
}
