/** Per call (and per module load): time in ms; memory of the solution's sandbox in bytes. */
export interface ScriptLimits {
  /** @default 1000 */
  readonly timeoutMs: number;
  /** @default 64 MiB */
  readonly memoryBytes: number;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = Object.freeze({
  timeoutMs: 1000,
  memoryBytes: 64 * 1024 * 1024,
});

/** At most this many `console` lines per call (or per load) of a script. */
export const MAX_LOG_LINES = 100;
