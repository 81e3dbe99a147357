import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { RuleCode } from '../rule-codes.js';
import type { FunctionDefinition } from '../schema/index.js';
import type { Solution, SourceFile } from '../solution.js';
import type { PropertyPath } from '../yaml-file.js';

export interface Reporter {
  /** Report at the value at `path` (at its key with `key`, at a character inside it with `index`). */
  report(code: RuleCode, message: string, path: PropertyPath, at?: { key?: boolean; index?: number }): void;
}

export function reporterFor(file: SourceFile, into: Diagnostic[]): Reporter {
  return {
    report(code, message, path, at = {}) {
      const position =
        at.index === undefined
          ? file.yaml.locate(path, { key: at.key })
          : file.yaml.locateInValue(path, at.index);
      into.push(diagnostic(code, message, position));
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
