import type { FunctionRule } from './reporter.js';

export const queryDependencies: FunctionRule = (file, r) => {
  const queries = file.definition.queries ?? {};
  const names = new Set(Object.keys(queries));

  for (const [name, query] of Object.entries(queries)) {
    for (const [i, dep] of (query.dependencies ?? []).entries()) {
      if (!names.has(dep)) {
        r.report(
          'QUERY_UNKNOWN_DEPENDENCY',
          `query '${name}' depends on '${dep}', which is not a query of this function (queries: ${[...names].join(', ')})`,
          ['queries', name, 'dependencies', i],
        );
      }
    }
  }

  // Depth-first search; each cycle is reported once, at the query where it was closed.
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]) => {
    state.set(name, 'visiting');
    for (const dep of queries[name]?.dependencies ?? []) {
      if (!names.has(dep)) continue;
      if (state.get(dep) === 'visiting') {
        const path = [...trail, name];
        const cycle = [...path.slice(path.indexOf(dep)), dep].join(' -> ');
        r.report(
          'QUERY_CYCLE',
          `query dependencies form a cycle: ${cycle}; remove one of these dependencies`,
          ['queries', name, 'dependencies'],
        );
      } else if (!state.has(dep)) {
        visit(dep, [...trail, name]);
      }
    }
    state.set(name, 'done');
  };
  for (const name of names) if (!state.has(name)) visit(name, []);
};
