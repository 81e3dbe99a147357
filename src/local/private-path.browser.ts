// The browser build: the client's database lives in the Origin Private File System, which only this
// origin's pages can read; there are no file modes to set.

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;

export function privateFolder(_folder: string): void {}

export function privateFile(_file: string): void {}
