import type { Command } from 'commander';

/**
 * The Examples section of every command's --help, after gh's: a comment saying what it does, then
 * the command as typed. They work as written in a solution `restfn init demo` made (run from its
 * folder; its function is `rest-get-items`), or against a platform once `restfn login --server URL`
 * signed in; test/cli/help-examples.test.ts runs a handful of them. Keyed by the command's path
 * without `restfn`. Plain strings only: this file loads with every command.
 */
export const EXAMPLES: Readonly<Record<string, ReadonlyArray<readonly [what: string, command: string]>>> = {
  '': [
    ['Start a solution and run its first function', 'restfn init demo --url https://api.example.com/items'],
    ['Then, from its folder', 'restfn validate && restfn run rest-get-items'],
    [
      'Sign in to a platform once; its commands use it from then on',
      'restfn login --server https://restfn.example.com',
    ],
  ],
  validate: [
    ['Check the solution found from this folder upward', 'restfn validate'],
    [
      'Check one file; the findings as JSON',
      'restfn validate functions/rest-get-items.platform --format json',
    ],
  ],
  lsp: [['Start the language server an editor talks to (the editor runs this)', 'restfn lsp --stdio']],
  run: [
    ['Call a function; its output as JSON on stdout', 'restfn run rest-get-items'],
    [
      'Give parameters (repeat -p), and trace the request and response',
      'restfn run rest-get-items -p limit=5 -v',
    ],
    [
      'Keep some fields, or filter with a JSONata expression',
      "restfn run rest-get-items --json id,name --expr '$[0].name'",
    ],
  ],
  sync: [
    ["Fill every datasource's local table", 'restfn sync'],
    ['One datasource, a line per page', 'restfn sync items -v'],
  ],
  query: [
    ['The rows a datasource gives a screen now', 'restfn query items'],
    [
      'SQL on the local tables (written [name]); only the ids',
      "restfn query 'SELECT id, data FROM [items]' --json id",
    ],
  ],
  action: [
    [
      'Update a record from what a screen would give, then push',
      'restfn action update-item -p current.item.id=1 -p components.limit.state.value=5',
    ],
    [
      'Only change the local record and queue the call (as offline)',
      'restfn action update-item -p current.item.id=1 --no-push',
    ],
  ],
  queue: [['The commands waiting to be sent', 'restfn queue']],
  'queue list': [['The queue as JSON', 'restfn queue list --format json']],
  'queue push': [['Send what is waiting now', 'restfn queue push']],
  'queue retry': [
    [
      'Send a failed command again at the next push (a unique start of its id will do)',
      'restfn queue retry 3f2a',
    ],
    [
      'After fixing the action or function it was built from, build it again from the files',
      'restfn queue retry --rebuild 3f2a',
    ],
  ],
  'queue delete': [['Drop a command without sending it', 'restfn queue delete 3f2a']],
  'queue clear': [['Drop a command and every later one for the same record', 'restfn queue clear 3f2a']],
  credentials: [['The credential keys of this solution (never their values)', 'restfn credentials list']],
  'credentials set': [
    [
      'Store an API key (read from standard input or a hidden prompt)',
      'restfn credentials set api-key --kind secret --origin https://api.example.com',
    ],
    [
      'The same on the platform, for the solution published there',
      'restfn credentials set api-key --kind secret --server',
    ],
  ],
  'credentials list': [['On the platform', 'restfn credentials list --server --format json']],
  'credentials delete': [['Delete a credential and its tokens', 'restfn credentials delete api-key']],
  connect: [
    ["Connect your own account to the platform's OAuth credential", 'restfn connect crm-oauth --server'],
  ],
  login: [
    [
      'Sign in to a platform with your user name and password; commands without --server use it',
      'restfn login --server https://restfn.example.com',
    ],
    [
      'Or keep a token made with restfn tokens create (read from standard input)',
      'restfn login --server https://restfn.example.com --with-token < token.txt',
    ],
    ['Which platforms this device is logged in to', 'restfn login --status'],
    ['Log in to an OAuth credential of the solution (with KEY)', 'restfn login crm-oauth'],
  ],
  logout: [
    ["Forget the default platform's login (and revoke the token login made)", 'restfn logout'],
    ["Another platform's", 'restfn logout --server https://restfn.example.com'],
  ],
  schema: [
    [
      'The JSON Schema of function files, for an editor',
      'restfn schema --kind function > function.schema.json',
    ],
  ],
  init: [
    [
      'A solution in a new folder, its first function calling this address',
      'restfn init demo --url https://api.example.com/items',
    ],
  ],
  new: [
    [
      'A function with an API key header',
      'restfn new rest-get-orders -t api-key --url https://api.example.com/orders',
    ],
    [
      'A function that sends a POST with a bearer token',
      'restfn new rest-create-order -t bearer --method POST --url https://api.example.com/orders',
    ],
    ['A datasource filling table items from a function', 'restfn new items -t datasource -f rest-get-items'],
    [
      'A function that updates one item: a PUT to its address',
      "restfn new rest-update-item --method PUT --url 'https://api.example.com/items/{id}'",
    ],
    [
      'An action that updates a record of table items locally and queues that PUT',
      'restfn new update-item -t action -f rest-update-item -e items -m update',
    ],
  ],
  import: [
    [
      'Preview the functions an OpenAPI description gives, then write them',
      'restfn import openapi.yaml --dry-run',
    ],
    [
      'Only some operations, without a name prefix',
      "restfn import openapi.yaml --only listOrders --prefix ''",
    ],
  ],
  serve: [
    [
      "Run the platform on this machine (the first admin's token is printed once)",
      'restfn serve --port 8080 --data .restfn-server',
    ],
    [
      'Let one solution call a private host (also: restfn targets add, without a restart)',
      'restfn serve --allow-target crm=10.0.0.5:8080',
    ],
  ],
  'serve reset-admin': [
    [
      'A new token for the first admin (the server stopped)',
      'restfn serve reset-admin --data .restfn-server',
    ],
  ],
  'serve rotate-key': [
    [
      'Re-encrypt the credentials under a new master key (the server stopped)',
      'restfn serve rotate-key --data .restfn-server',
    ],
  ],
  publish: [['Validate, then upload the solution as a new version', 'restfn publish']],
  users: [["The platform's users", 'restfn users list']],
  'users add': [
    [
      'An author of solution crm who signs in to the console',
      'restfn users add alice --role author --solution crm --with-password',
    ],
  ],
  'users list': [['As JSON', 'restfn users list --format json']],
  'users set': [
    [
      'A new console password for alice (read, never from arguments)',
      'restfn users set alice --with-password',
    ],
  ],
  'users remove': [['Remove a user and their tokens', 'restfn users remove alice']],
  tokens: [['The tokens of a user', 'restfn tokens list alice']],
  'tokens create': [
    [
      'A token for a CI job: only the token goes to stdout',
      'restfn tokens create alice --name ci > token.txt',
    ],
  ],
  'tokens list': [
    ['Their ids, names and dates (never the tokens)', 'restfn tokens list alice --format json'],
  ],
  'tokens revoke': [['Revoke one (a unique start of its id will do)', 'restfn tokens revoke alice 3f2a']],
  targets: [['The private hosts solutions may call', 'restfn targets list']],
  'targets list': [['As JSON', 'restfn targets list --format json']],
  'targets add': [
    [
      'Let solution crm call a private service, at once and across restarts',
      'restfn targets add crm 10.0.0.5:8080',
    ],
  ],
  'targets remove': [['Stop it', 'restfn targets remove crm 10.0.0.5:8080']],
};

/** The Examples section of `command` (its path without `restfn`), as help prints it. */
export function examplesText(path: string): string | undefined {
  const examples = EXAMPLES[path];
  if (!examples) return undefined;
  return `\nExamples:\n${examples.map(([what, command]) => `  # ${what}\n  $ ${command}\n`).join('\n')}`;
}

/** Adds each command's Examples after its help. */
export function addExamples(commands: readonly Command[]): void {
  for (const command of commands) {
    const names: string[] = [];
    for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
    const text = examplesText(names.join(' '));
    if (text) command.addHelpText('after', text);
  }
}
