/** restfn's version (package.json's), as `restfn --version` prints it and caches are stamped with. */
export const RESTFN_VERSION = '0.1.0';
