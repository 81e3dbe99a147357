import { describe, expect, it } from 'vitest';
import type { FunctionInfo } from '../../console/src/api.js';
import { contextLabel } from '../../console/src/context-label.js';
import { defaultExpression, shownDefault, urlAsSent } from '../../console/src/url-as-sent.js';

type Parameter = FunctionInfo['parameters'][number];

const fn = (url: string, parameters: Parameter[]): FunctionInfo => ({
  name: 'f',
  path: 'functions/f.platform',
  method: 'POST',
  url,
  useLocalCall: false,
  paged: false,
  parameters,
  source: '',
});
const path = (name: string, more: Partial<Parameter> = {}): Parameter => ({
  name,
  location: 'path',
  type: 'string',
  required: true,
  ...more,
});

describe('the url the console says a preview sends', () => {
  const base = path('base', {
    value: '=@ctx.solution.settings.custom.apiBase',
    resolved: 'https://api.example.com/v2',
  });

  it('fills the address as written and path values percent-encoded, as the runtime does', () => {
    const f = fn('{base}/tickets/{id}/comments?x={q}', [base, path('id')]);
    expect(urlAsSent(f)).toBe('https://api.example.com/v2/tickets/{id}/comments?x={q}');
    expect(urlAsSent(f, { id: 'a b/c' })).toBe('https://api.example.com/v2/tickets/a%20b%2Fc/comments?x={q}');
    // The form's value wins over the default.
    expect(urlAsSent(f, { base: 'http://127.0.0.1:8080', id: '7' })).toBe(
      'http://127.0.0.1:8080/tickets/7/comments?x={q}',
    );
  });

  it('leaves what it cannot know: an expression it has no value for, a credential, a url expression', () => {
    const user = path('who', { value: '=@ctx.user.name' });
    const key = path('key', { value: 'api-key', credential: 'secret' });
    expect(urlAsSent(fn('https://x.example/{who}/{key}', [user, key]))).toBe('https://x.example/{who}/{key}');
    expect(shownDefault(key)).toBeUndefined();
    expect(defaultExpression(user)).toBe('=@ctx.user.name');
    expect(defaultExpression(base)).toBeUndefined();
    expect(shownDefault(base)).toBe('https://api.example.com/v2');
    expect(urlAsSent(fn('=@ctx.parameters.next', []))).toBe('=@ctx.parameters.next');
  });
});

describe('an action form label for a screen value', () => {
  it.each([
    ['current.item.id', 'Item id'],
    ['current.item.customerId', 'Item customer id'],
    ['components.comment-field.state.value', 'Comment field'],
    ['components.name.state.value', 'Name field'],
    ['components.due_date.state.selected', 'Due date field selected'],
    ['jig.inputs.ticket', 'Screen input ticket'],
    ['record.id', 'Record id'],
    ['action.parameters.ticketId', 'Action parameter ticket id'],
  ])('%s reads as %s', (path, label) => {
    expect(contextLabel(path)).toBe(label);
  });
});
