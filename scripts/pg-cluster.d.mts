export interface PostgresCluster {
  /** postgres://... of a database the caller may use freely. */
  readonly url: string;
  /** Makes another, empty database on the same server; its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown), keeping its data; only for a cluster started here. */
  pause(): void;
  /** Starts it again on the same port. */
  resume(): void;
  /** Stops it and removes its files (or drops the database on RESTFN_TEST_DATABASE_URL's server). */
  stop(): Promise<void>;
}
export function postgresBin(): string;
export function startPostgres(): Promise<PostgresCluster>;
