import * as z from 'zod';
import { MAX_STRING_LENGTH_CEILING } from '../../expression/limits.js';
import { MAX_RESPONSE_DEPTH_CEILING } from '../../http/options.js';
import { strict } from './common.js';

const positiveInt = z.number().int().positive();

export const solutionDefinition = strict({
  name: z.string().optional().describe('Solution name; defaults to the folder name.'),
  id: z
    .string()
    .optional()
    .describe(
      'Read as @ctx.solution.id outside the platform (the platform gives its own); default: the name.',
    ),
  organization: strict({ id: z.string().optional(), name: z.string().optional() })
    .optional()
    .describe('Read as @ctx.organization.id / .name (the platform may give its own).'),
  expressions: z
    .record(
      z.string().regex(/^[A-Za-z_][\w-]*$/, 'a name of letters, digits, _ and -'),
      z.union([z.string(), z.number(), z.boolean()]),
    )
    .optional()
    .describe(
      "Named expressions for the whole solution, read in any expression as @ctx.expressions.<name> or $<name> (JSONata's own function names stay JSONata's): each is evaluated where it is read, against that context.",
    ),
  title: z.string().optional(),
  description: z.string().optional(),
  settings: strict({
    custom: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Read as @ctx.solution.settings.custom.<name>.'),
    expressions: strict({
      timeoutMs: positiveInt
        .optional()
        .describe('Longest evaluation of one expression, in ms. Default: 2000.'),
      maxDepth: positiveInt.optional().describe('Deepest evaluation stack. Default: 500.'),
      maxSequence: positiveInt
        .optional()
        .describe('Longest sequence an expression may build. Default: 1000000.'),
      maxStringLength: positiveInt
        .max(MAX_STRING_LENGTH_CEILING)
        .optional()
        .describe(
          `Longest text (in characters) a JSONata function takes or an expression gives. Default: 10000000; at most ${MAX_STRING_LENGTH_CEILING}.`,
        ),
    })
      .optional()
      .describe('JSONata guardrails, always on; raise them here.'),
    http: strict({
      connectTimeoutMs: positiveInt.optional().describe('Time to open a connection, in ms. Default: 10000.'),
      headersTimeoutMs: positiveInt
        .optional()
        .describe('Time to receive the response headers, in ms. Default: 30000.'),
      bodyTimeoutMs: positiveInt
        .optional()
        .describe('Longest pause while receiving the response body, in ms. Default: 30000.'),
      requestTimeoutMs: positiveInt
        .optional()
        .describe(
          'Longest time for one request as a whole (connecting, redirects, headers and the whole body), in ms. Default: 120000.',
        ),
      maxResponseMb: z
        .number()
        .positive()
        .optional()
        .describe('Largest response body, in MB; reading stops there (RESPONSE_TOO_LARGE). Default: 50.'),
      maxResponseDepth: positiveInt
        .max(MAX_RESPONSE_DEPTH_CEILING)
        .optional()
        .describe(
          `Deepest nesting of a JSON or XML response (RESPONSE_TOO_DEEP). Default: 256; at most ${MAX_RESPONSE_DEPTH_CEILING}.`,
        ),
      maxRedirections: z.number().int().nonnegative().optional().describe('Redirects followed. Default: 5.'),
    })
      .optional()
      .describe('Outbound HTTP settings for every function of the solution.'),
    scripts: strict({
      timeoutMs: positiveInt
        .optional()
        .describe('Longest run of one script function call (or module load), in ms. Default: 1000.'),
      memoryLimitMb: positiveInt
        .optional()
        .describe("Memory of the solution's script sandbox, in MB. Default: 64."),
    })
      .optional()
      .describe('Limits for the expression scripts in scripts/expressions/*.js.'),
    user: strict({
      id: z.string().optional(),
      email: z.string().optional(),
      displayName: z.string().optional(),
    })
      .optional()
      .describe(
        'The user expressions read as @ctx.user when restfn runs outside the platform (the CLI options --user-* override it).',
      ),
    execution: strict({
      timeoutMs: positiveInt
        .optional()
        .describe(
          'Longest run of one function (its guard, every retry and the waits between them), in ms. Default: 300000.',
        ),
    })
      .optional()
      .describe('Limits of one function run (`restfn run`, `runtime.execute`).'),
    sync: strict({
      maxPages: positiveInt.optional().describe('Most continuation pages one sync follows. Default: 1000.'),
      timeoutMs: positiveInt
        .optional()
        .describe('Longest sync of one datasource (every entity, page and retry), in ms. Default: 3600000.'),
    })
      .optional()
      .describe('Sync settings.'),
    platform: strict({
      url: z
        .url({ protocol: /^https?$/ })
        .describe('The platform that makes the remote calls (`restfn serve`), as with --server.'),
    })
      .optional()
      .describe(
        'Run the solution against a platform: the calls go there with its credentials (token: RESTFN_TOKEN, or the device credential `platform-token`).',
      ),
  })
    .optional()
    .describe(
      "The solution's settings: `custom` values (@ctx.solution.settings.custom.<name>), expression limits, outbound HTTP, run and sync limits, the platform.",
    ),
});

export type SolutionDefinition = z.output<typeof solutionDefinition>;
