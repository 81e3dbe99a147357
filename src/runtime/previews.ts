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
}
