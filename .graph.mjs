import * as esbuild from 'esbuild';
import { builtinModules } from 'node:module';
const nodeish = new Set([...builtinModules, ...builtinModules.map(m=>'node:'+m)]);
const r = await esbuild.build({ entryPoints:['/tmp/bt/entry.ts'], bundle:true, format:'esm', platform:'browser', write:false, metafile:true, logLevel:'silent',
 plugins:[{name:'n', setup(b){ b.onResolve({filter:/.*/}, a => nodeish.has(a.path) || a.path.startsWith('node:') || a.path==='better-sqlite3' ? {path:a.path, external:true}: undefined); }}]});
const rows=[];
for (const [f, info] of Object.entries(r.metafile.inputs)) for (const i of info.imports) if (i.external) rows.push(`${f} -> ${i.path}`);
console.log(rows.sort().join('\n'));
