// What the platform tells the console about a version's files: shared by the worker that builds
// them (executor/tasks.ts) and the console that shows them (console/src/api.ts), so both read the
// same shape. Types only, no imports: the console's build takes this file as it is.

/** A datasource as the console lists it: the tables it fills, each from its function. */
export interface DatasourceInfo {
  readonly name: string;
  readonly entities: ReadonlyArray<{ entity: string; function?: string }>;
}

/** An action as the console lists it, with the screen values (`@ctx` paths) it reads. */
export interface ActionInfo {
  readonly name: string;
  readonly type: string;
  readonly method?: string;
  readonly entity?: string;
  readonly function?: string;
  /** The screen values it reads, as `@ctx` paths (`current.item.id`). */
  readonly reads: readonly string[];
}

/** A function as the console lists and previews it (the worker reads it from the definition). */
export interface FunctionInfo {
  readonly name: string;
  readonly path: string;
  readonly method: string;
  readonly url: string;
  readonly useLocalCall: boolean;
  /** It has a `continuation`: the console offers its pages. */
  readonly paged: boolean;
  readonly parameters: ReadonlyArray<{
    name: string;
    location: string | undefined;
    type: string | undefined;
    required: boolean;
    value?: unknown;
    /**
     * What an expression `value` gives, when the platform knows it without running anything: a read
     * of solution.yaml's `settings.custom` (the same for every caller). Never a credential's.
     */
    resolved?: unknown;
    credential?: 'secret' | 'oauth';
  }>;
  readonly source: string;
}
