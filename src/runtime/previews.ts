// What the previews answer (Runtime.previewDatasource and previewAction): the platform's console
// reads the same shapes. Types only, no imports: the console's build takes this file as it is.

/** What `previewDatasource` found: each entity's paging, each table's rows, the query's rows. */
export interface DatasourcePreview {
  readonly datasource: string;
  readonly entities: ReadonlyArray<{
    entity: string;
    function: string;
    pages: number;
    records: number;
    stopped: string;
    error?: { code: string; message: string };
  }>;
  readonly tables: Readonly<Record<string, { rows: unknown[]; total: number }>>;
  readonly rows: readonly unknown[] | undefined;
}

/** What `previewAction` found: the local row before and after, and the commands it would queue. */
export interface ActionPreview {
  readonly action: string;
  readonly method?: string;
  readonly entity?: string;
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
  readonly commands: ReadonlyArray<{
    type: string;
    entity: string | null;
    record: string | null;
    function: string | null;
    parameters: unknown;
  }>;
  /**
   * Every step in the order it ran (lists, confirms, global actions, follow-ups): a data action ran
   * here (`ranHere: true`), or a step only a screen takes (navigate, notify, ask) was reported.
   */
  readonly steps?: ReadonlyArray<{
    type: string;
    ranHere: boolean;
    action?: string;
    entity?: string;
    record?: string;
    records?: number;
    title?: string;
    skipped?: string;
    error?: { code: string; message: string };
  }>;
}
