import { codeActions } from './code-actions.js';
import { codeLenses } from './code-lenses.js';
import { commands } from './commands.js';
import { completion } from './completion.js';
import type { Feature } from './feature.js';
import { hover } from './hover.js';
import { navigation } from './navigation.js';
import { symbols } from './symbols.js';

/**
 * The features `restfn lsp` offers besides findings (which server.ts publishes itself): each in
 * its own file, announced at `initialize` and registered in this order.
 */
export const FEATURES: readonly Feature[] = [
  completion,
  hover,
  navigation,
  symbols,
  codeActions,
  codeLenses,
  commands,
];
