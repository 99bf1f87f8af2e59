/** Image type by magic bytes: real PNG, JPEG and WebP headers are recognised; text, other formats and truncated headers are not. */
import QRCode from 'qrcode';
import { detectImageType, IMAGE_SNIFF_BYTES } from '../../core/storage/imageType';

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');
const JPEG = hex('ffd8ffe000104a46494600010100000100010000');
const WEBP_LOSSY = Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WEBPVP8 '), hex('18000000')]);
const WEBP_LOSSLESS = Buffer.concat([Buffer.from('RIFF'), hex('1a000000'), Buffer.from('WEBPVP8L'), hex('0d000000')]);

describe('detectImageType', () => {
  it('recognises a real PNG (made by qrcode)', async () => {
    const png = await QRCode.toBuffer('avatar');
    expect(detectImageType(png.subarray(0, IMAGE_SNIFF_BYTES))).toBe('image/png');
  });

  it('recognises JPEG and both WebP kinds', () => {
    expect(detectImageType(JPEG)).toBe('image/jpeg');
    expect(detectImageType(WEBP_LOSSY)).toBe('image/webp');
    expect(detectImageType(WEBP_LOSSLESS)).toBe('image/webp');
  });

  it.each([
    ['a text file', Buffer.from('just some text renamed to .png\n')],
    ['HTML', Buffer.from('<!doctype html><script>alert(1)</script>')],
    ['an empty file', Buffer.alloc(0)],
    ['a GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00', 'latin1')],
    ['a PNG signature without its IHDR chunk', hex('89504e470d0a1a0a 0000000d 49444154')],
    ['a truncated PNG signature', hex('89504e47')],
    ['a WAV (RIFF but not WEBP)', Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WAVEfmt ')])],
    [
      'a RIFF/WEBP with an unknown chunk',
      Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WEBPABCD')]),
    ],
    ['two JPEG bytes', hex('ffd8')],
  ])('refuses %s', (_what, bytes) => {
    expect(detectImageType(bytes)).toBeNull();
  });
});
