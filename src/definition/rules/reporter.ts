import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { RuleCode } from '../rule-codes.js';
import type { FunctionDefinition } from '../schema/index.js';
import type { Solution, SourceFile } from '../solution.js';
import { type Meant, suggestionAt } from '../suggestion.js';
import type { PropertyPath } from '../yaml-file.js';

export interface Reporter {
  /**
   * Report at the value at `path` (at its key with `key`, at a character inside it with `index`);
   * `meant`: the did-you-mean the message makes, as the finding's `suggestion`.
   */
  report(
    code: RuleCode,
    message: string,
    path: PropertyPath,
    at?: { key?: boolean; index?: number; meant?: Meant | undefined },
  ): void;
}

export function reporterFor(file: SourceFile, into: Diagnostic[]): Reporter {
  return {
    report(code, message, path, at = {}) {
      const position =
        at.index === undefined
          ? file.yaml.locate(path, { key: at.key })
          : file.yaml.locateInValue(path, at.index);
      const suggestion = at.meant ? suggestionAt(file.yaml, path, at.meant) : undefined;
      into.push(diagnostic(code, message, position, suggestion));
    },
  };
}

/** A function file that passed the schema. */
export type ValidFunction = SourceFile<'function'> & { readonly definition: FunctionDefinition };

/** A rule over one valid function; it may look at the rest of the solution. */
export type FunctionRule = (
  file: ValidFunction,
  reporter: Reporter,
  solution: Solution,
) => void | Promise<void>;
