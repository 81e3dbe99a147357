import type { FunctionRule } from './reporter.js';

export const inputTransformFormat: FunctionRule = (file, r) => {
  const { inputTransform, format } = file.definition;
  if (inputTransform !== undefined && format !== 'json') {
    r.report(
      'INPUT_TRANSFORM_FORMAT',
      `inputTransform builds a JSON body and is only used with 'format: json' (this function has 'format: ${format}'); remove it or use format json`,
      ['inputTransform'],
      { key: true },
    );
  }
};

export const bodyOnGet: FunctionRule = (file, r) => {
  const { method, inputTransform, parameters = {} } = file.definition;
  if (method !== 'GET' && method !== 'HEAD') return;
  if (inputTransform !== undefined) {
    r.report(
      'BODY_ON_GET',
      `${method} requests never send a body, so inputTransform is not used; send values as 'location: query' parameters`,
      ['inputTransform'],
      { key: true },
    );
    return;
  }
  for (const [name, parameter] of Object.entries(parameters)) {
    if (parameter.location === 'body') {
      r.report(
        'BODY_ON_GET',
        `${method} requests never send a body, so body parameter '${name}' is not sent; use 'location: query'`,
        ['parameters', name, 'location'],
      );
    }
  }
};
