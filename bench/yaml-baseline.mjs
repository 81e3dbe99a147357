// Baseline for bench/validate.mjs: read and parse every .platform file, nothing else.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const root = process.argv[2];
let count = 0;
for (const entry of readdirSync(join(root, 'functions'), { recursive: true, encoding: 'utf8' })) {
  if (!entry.endsWith('.platform')) continue;
  parse(readFileSync(join(root, 'functions', entry), 'utf8'));
  count++;
}
console.log(`${count} files parsed`);
