/** What a completion is, for the editor's icon and ordering. */
export type CompletionKind =
  | 'function'
  | 'key'
  | 'value'
  | 'entity'
  | 'action'
  | 'parameter'
  | 'credential'
  | 'context'
  | 'jsonata'
  | 'script'
  | 'expression'
  | 'snippet';

/** One completion: the text to insert, what it is, and its documentation. */
export interface CompletionEntry {
  readonly label: string;
  readonly kind: CompletionKind;
  readonly detail?: string;
  readonly documentation?: string;
  /** Orders the list (the label when absent): required parameters before the others. */
  readonly sortText?: string;
  /** Inserted instead of the label; with `snippet`, in LSP's snippet syntax (`${1:url}`). */
  readonly insertText?: string;
  readonly snippet?: boolean;
  /**
   * The character on the line where the text it replaces starts (what is typed of the word, which
   * may hold `-` or `.`); the cursor when absent.
   */
  readonly from?: number;
}
