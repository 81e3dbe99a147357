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
