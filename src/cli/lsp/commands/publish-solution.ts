import { PlatformClient } from '../../../client/platform-client.js';
import type { Diagnostic } from '../../../definition/diagnostic.js';
import { loadSolution } from '../../../definition/solution.js';
import { validateSolution } from '../../../definition/validate.js';
import { DefinitionError } from '../../../errors/definition-error.js';
import { UsageError } from '../../../errors/restfn-error.js';
import { solutionUpload } from '../../commands/platform-action.js';
import { editorPlatformTarget, readLogins } from '../../platform-logins.js';
import { counted } from '../../plural.js';
import { unseenFindings } from '../../server-findings.js';

/** What a Publish from the editor answers, as `restfn publish --format json` says it, with the server's own findings. */
export interface PublishAnswer {
  readonly solution: string;
  readonly version: number;
  readonly unchanged: boolean;
  readonly files: number;
  readonly server: string;
  readonly findings: readonly Diagnostic[];
}

/**
 * `restfn.publish`: `restfn publish` of the solution's saved files (not the editor's unsaved
 * texts: what is published is what is on disk, as from a terminal), to the platform of
 * `editorPlatformTarget` (the editor's setting with that platform's own token, else
 * RESTFN_SERVER/RESTFN_TOKEN, else the last `restfn login --server`). Nothing is sent when the
 * solution has errors.
 */
export async function publishSolution(root: string, env: NodeJS.ProcessEnv): Promise<PublishAnswer> {
  const client = editorPlatformClient(env);
  const solution = loadSolution(root, { displayBase: root });
  const { diagnostics, errors } = await validateSolution(solution);
  if (errors > 0)
    throw new DefinitionError(
      `solution '${solution.name}' has ${counted(errors, 'error')}; fix them first, nothing was published`,
      diagnostics,
    );
  const files = solutionUpload(solution.root);
  const answer = await client.request<{ version: number; unchanged: boolean; findings?: unknown }>(
    'PUT',
    `/api/v1/solutions/${encodeURIComponent(solution.name)}`,
    { files },
  );
  return {
    solution: solution.name,
    version: answer.version,
    unchanged: answer.unchanged,
    files: Object.keys(files).length,
    server: client.url,
    findings: unseenFindings(answer.findings, diagnostics, solution.root, root),
  };
}

/**
 * The platform client as the CLI finds it; its "which platform?" and token errors say what to do
 * from an editor (where there is no --server or --token to pass).
 */
function editorPlatformClient(env: NodeJS.ProcessEnv) {
  try {
    return PlatformClient.from(editorPlatformTarget(env, readLogins(env)), {});
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.message.startsWith('which platform?'))
      throw new UsageError(
        "which platform? set the restfn.server.url setting (VS Code) or RESTFN_SERVER in the editor's environment, or run 'restfn login --server URL' in a terminal once",
      );
    if (error.message.startsWith('the platform needs an API token'))
      throw new UsageError(
        "the platform needs an API token: run 'restfn login --server URL' in a terminal, or set RESTFN_TOKEN in the editor's environment ('restfn tokens create' makes one)",
      );
    throw error;
  }
}
