import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConversionError } from './errors.js';
import { PRIVATE_FILE_MODE, privateFolder } from './private-path.js';

/**
 * The device's file store for `local-uri` values (conventions.md): files in the state folder,
 * addressed as `file://` URIs. Only URIs inside the store are read, so a record cannot make restfn
 * send an arbitrary file of the machine.
 */
export class FileStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  save(bytes: Uint8Array, extension: string): string {
    privateFolder(this.root);
    // `node:crypto` when a file is first saved, not when a command that may save one starts.
    const path = join(this.root, `${process.getBuiltinModule('node:crypto').randomUUID()}.${extension}`);
    writeFileSync(path, bytes, { mode: PRIVATE_FILE_MODE });
    return pathToFileURL(path).href;
  }

  read(uri: string): Buffer {
    let path: string;
    try {
      path = fileURLToPath(uri);
    } catch {
      throw new ConversionError('CONVERSION_INPUT', `'${uri.slice(0, 60)}' is not a file:// URI`);
    }
    // Compared as the files really are: a link in the store must not reach a file outside it.
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new ConversionError('CONVERSION_INPUT', `${uri} does not exist in the file store`);
    }
    let root: string;
    try {
      root = realpathSync(this.root);
    } catch {
      root = this.root;
    }
    const inside = relative(root, resolve(real));
    if (inside.startsWith('..') || inside.startsWith(sep) || inside === '') {
      throw new ConversionError('CONVERSION_INPUT', `${uri} is outside the file store (${this.root})`);
    }
    try {
      return readFileSync(real);
    } catch {
      throw new ConversionError('CONVERSION_INPUT', `${uri} cannot be read from the file store`);
    }
  }
}
