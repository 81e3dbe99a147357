import type { FunctionRule } from './reporter.js';

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
