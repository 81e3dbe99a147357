import { describe, expect, it } from 'vitest';
import { parseContext } from '../../src/cli/commands/action-action.js';

describe('restfn action: --context and -p', () => {
  it('dotted -p paths build the objects on the way, over the --context JSON', () => {
    expect(
      parseContext('{"user":{"name":"ada"}}', ['current.item.id=c-7', 'components.name.state.value=a=b']),
    ).toEqual({
      user: { name: 'ada' },
      current: { item: { id: 'c-7' } },
      components: { name: { state: { value: 'a=b' } } },
    });
  });

  it('a -p under a path that holds a value already is refused, not silently replaced', () => {
    expect(() => parseContext(undefined, ['a=1', 'a.b=2'])).toThrow(
      /-p a\.b=2: 'a' has a value already \("1"\), so it cannot hold 'b'/,
    );
    expect(() => parseContext('{"current":"x"}', ['current.item.id=1'])).toThrow(
      /'current' has a value already/,
    );
  });

  it('paths that are not paths, and JavaScript internals, are usage errors', () => {
    for (const bad of ['=x', 'a..b=1', 'novalue'])
      expect(() => parseContext(undefined, [bad])).toThrow(expect.objectContaining({ code: 'USAGE' }));
    expect(() => parseContext(undefined, ['__proto__.polluted=1'])).toThrow(/names a JavaScript internal/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => parseContext('[1]', [])).toThrow(/--context must be a JSON object/);
  });
});
