/** File types restfn recognises by their first bytes (conversions, raw uploads). */

/** HEIF files are ISO media with an `ftyp` box naming a HEIF brand. */
export function isHeic(bytes: Buffer): boolean {
  return (
    bytes.subarray(4, 8).toString('latin1') === 'ftyp' &&
    /^(heic|heix|hevc|hevx|mif1|msf1|heim|heis)$/.test(bytes.subarray(8, 12).toString('latin1'))
  );
}

const SIGNATURES: Array<{ test: (b: Buffer) => boolean; mime: string; extension: string }> = [
  { test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff, mime: 'image/jpeg', extension: 'jpg' },
  {
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
    mime: 'image/png',
    extension: 'png',
  },
  { test: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8', mime: 'image/gif', extension: 'gif' },
  { test: (b) => b.subarray(0, 5).toString('latin1') === '%PDF-', mime: 'application/pdf', extension: 'pdf' },
  { test: isHeic, mime: 'image/heic', extension: 'heic' },
];

/** The media type and file extension of some bytes, by their signature; octet-stream when unknown. */
export function mediaTypeOf(bytes: Buffer): { mime: string; extension: string } {
  return SIGNATURES.find((s) => s.test(bytes)) ?? { mime: 'application/octet-stream', extension: 'bin' };
}

/**
 * Media types by file extension, for a file read from disk (`restfn run -p file=@note.txt`): a
 * service takes a text or CSV upload by its type, which the bytes alone do not tell. A short table
 * of what is uploaded in practice; other extensions fall back to the bytes' signature.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  heic: 'image/heic',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
};

/** The media type of a file named `filename` with these bytes: by extension, else by signature. */
export function mediaTypeOfFile(filename: string, bytes: Buffer): string {
  const extension = /\.([^./\\]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (extension !== undefined ? BY_EXTENSION[extension] : undefined) ?? mediaTypeOf(bytes).mime;
}
