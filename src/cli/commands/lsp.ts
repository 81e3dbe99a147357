import type { Command } from 'commander';

export interface LspOptions {
  solution?: string;
  stdio?: boolean;
  delay: string;
}

export function registerLsp(program: Command): void {
  program
    .command('lsp')
    .description("language server for editors (LSP over stdio): validate's findings as you type, completion")
    .option(
      '--stdio',
      'talk over standard input and output (the only transport; accepted for editors that pass it)',
    )
    .option('-s, --solution <dir>', "solution folder (default: the editor's workspace, else found upward)")
    .option('--delay <ms>', 'wait this long after the last keystroke before checking', '200')
    .action(async (options: LspOptions) => {
      const { lsp } = await import('./lsp-action.js');
      await lsp(options);
    });
}
