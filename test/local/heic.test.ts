import { describe, expect, test } from 'vitest';
import { isMissing, loadHeicConvert } from '../../src/local/heic.js';

// heic-convert is an optional peer (issue 38): the test package's own install of it is used here;
// the packed install without it is test/package/pack.test.ts.
describe('the optional HEIC decoder', () => {
  test('installed: the decoder function', async () => {
    expect(typeof (await loadHeicConvert('photo'))).toBe('function');
  });

  test('not installed: CONVERSION_UNAVAILABLE naming the property and the install command', async () => {
    // A real import of a package that is not there, under the name the loader looks for.
    const absent: string = 'heic-convert-not-installed';
    const missing = () =>
      import(absent).catch((error: Error) => {
        throw Object.assign(new Error(error.message.replace('heic-convert-not-installed', 'heic-convert')), {
          code: (error as { code?: string }).code,
        });
      });
    await expect(loadHeicConvert('photo', missing)).rejects.toMatchObject({
      code: 'CONVERSION_UNAVAILABLE',
      message: expect.stringContaining("property 'photo' holds a HEIC image"),
    });
    await expect(loadHeicConvert('photo', missing)).rejects.toThrow('npm install heic-convert');
  });

  test('a broken install (a file of the package missing) is not reported as not installed', async () => {
    const broken = Object.assign(new Error("Cannot find module './lib/decoder.js'"), {
      code: 'MODULE_NOT_FOUND',
    });
    await expect(loadHeicConvert('photo', () => Promise.reject(broken))).rejects.toBe(broken);
    expect(
      isMissing(
        { code: 'ERR_MODULE_NOT_FOUND', message: "Cannot find package 'heic-convert' imported from x" },
        'heic-convert',
      ),
    ).toBe(true);
  });
});
