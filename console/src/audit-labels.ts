/**
 * How the solution's log reads at a glance: the colour of an outcome (GitHub's status labels) and
 * what each kind of entry means, said once in the legend and again in each entry's tooltip.
 */
export type Tone = 'ok' | 'failed' | 'limited' | 'neutral';

/** Refusals by the platform's own limits: nothing is wrong with the function, try again later. */
const LIMITED = new Set(['RATE_LIMITED', 'PLATFORM_BUSY']);

/** ok: green; skipped or stopped by its caller: grey; a platform limit: amber; any other code: red. */
export function outcomeTone(outcome: string): Tone {
  if (outcome === 'ok') return 'ok';
  if (outcome === 'skipped' || outcome === 'ABORTED') return 'neutral';
  return LIMITED.has(outcome) ? 'limited' : 'failed';
}

/** What the log's actions mean (the others, such as `denied`, show as they are). */
export const ACTION_MEANING: Readonly<Record<string, string>> = {
  // Worded from the routes: POST .../execute (the console's Preview, any API client) is `execute`;
  // POST .../call (`restfn run/sync/action --server`, an app) is `call`. No CLI command executes.
  execute:
    "the platform ran the whole function: the console's Preview, or a client of the API's POST .../execute",
  call: "an app, or restfn run, sync or action with --server, ran the function on its device and the platform only sent its HTTP request, adding the solution's credentials",
  'preview-datasource': "a datasource's tables filled in the console",
  'preview-action': 'an action tried in the console',
  publish: 'a new version of the solution',
  'credential.put': 'a credential added or changed',
  'credential.delete': 'a credential removed',
  'connection.add': 'a user connected their account to a credential',
  'connection.remove': "a user's connection removed",
  'version.remove': "an old version's files removed (retention)",
};

/** The log's filter by kind: kept in the screen's address. */
export const KINDS = [
  ['', 'everything'],
  ['executions', 'executions and calls'],
  ['changes', 'changes (publishes, credentials)'],
] as const;
