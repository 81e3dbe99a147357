import { functionIdProblem, isValidFileName, suggestFileName } from '../naming.js';
import { baseName } from '../solution.js';
import type { FunctionRule } from './reporter.js';

export const fileName: FunctionRule = (file, r) => {
  const name = baseName(file.path);
  if (!isValidFileName(name)) {
    const suggestion = suggestFileName(name);
    r.report(
      'FILE_NAME',
      `file name '${name}' must be lowercase letters, digits and '-'${suggestion ? `; rename it to '${suggestion}.platform'` : ''}`,
      [],
    );
  }
};

export const functionId: FunctionRule = (file, r) => {
  const id = file.definition.functionId;
  if (id === undefined) return;
  const problem = functionIdProblem(id);
  if (problem) r.report('FUNCTION_ID', `functionId ${problem}`, ['functionId']);
};

export const uniqueName: FunctionRule = (file, r, solution) => {
  const first = solution.functions.get(file.name);
  if (first && first.path !== file.path) {
    const where = file.definition.functionId === undefined ? [] : ['functionId'];
    r.report(
      'DUPLICATE_FUNCTION',
      `function name '${file.name}' is already used by ${first.yaml.file}; names must be unique across subfolders (rename the file or set a different functionId)`,
      where,
    );
  }
};
