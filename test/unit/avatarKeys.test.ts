/**
 * Object keys are exactly `<scope>/<owner>/<name>` of [A-Za-z0-9_-], so no key can climb out of
 * the uploads directory or name a hidden or sidecar file; the local store refuses any other key
 * before touching the disk.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { InvalidObjectKeyError, isValidKeySegment, isValidObjectKey } from '../../core/storage/objectStore';
import { LocalObjectStore, ObjectExistsError, ObjectTooLargeError } from '../../core/storage/localObjectStore';

const GOOD = 'avatars/42/6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f';

describe('object keys', () => {
  it.each([GOOD, 'avatars/user_1/abc', 'a/b/c', `avatars/${'x'.repeat(64)}/y`])('accepts %s', (key) => {
    expect(isValidObjectKey(key)).toBe(true);
  });

  it.each([
    ['parent segment', 'avatars/../secret'],
    ['parent inside', 'avatars/42/..'],
    ['dots anywhere', 'avatars/42/a.png'],
    ['hidden file', 'avatars/42/.tmp'],
    ['absolute path', '/avatars/42/abc'],
    ['absolute Windows path', 'C:/avatars/abc'],
    ['backslashes', 'avatars\\42\\abc'],
    ['two segments', 'avatars/42'],
    ['four segments', 'avatars/42/abc/def'],
    ['empty segment', 'avatars//abc'],
    ['trailing slash', 'avatars/42/abc/'],
    ['percent-encoding', 'avatars/42/%2e%2e'],
    ['NUL', 'avatars/42/a\u0000b'],
    ['space', 'avatars/42/a b'],
    ['segment over 64 characters', `avatars/42/${'x'.repeat(65)}`],
    ['leading dash', 'avatars/-42/abc'],
    ['empty', ''],
    ['not a string', 42],
  ])('refuses a key with %s', (_what, key) => {
    expect(isValidObjectKey(key)).toBe(false);
  });

  it('checks a single segment (a user id placed in a key) by the same rule', () => {
    expect(isValidKeySegment('42')).toBe(true);
    expect(isValidKeySegment('6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f')).toBe(true);
    expect(isValidKeySegment('4/2')).toBe(false);
    expect(isValidKeySegment('..')).toBe(false);
  });
});

describe('LocalObjectStore', () => {
  let dir: string;
  let store: LocalObjectStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uploads-'));
    store = new LocalObjectStore({ dir, publicBaseUrl: 'http://127.0.0.1:3000', signingSecret: 'x'.repeat(32) });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses invalid keys in every operation before touching the disk', async () => {
    const bad = '../../etc/passwd';
    await expect(store.head(bad)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.readStart(bad, 4)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.delete(bad)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.presignPut(bad, 'image/png', 10, 60)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.write(bad, Readable.from([Buffer.from('x')]), 'image/png', 10)).rejects.toBeInstanceOf(
      InvalidObjectKeyError,
    );
    expect(() => store.publicUrl(bad)).toThrow(InvalidObjectKeyError);
  });

  it('writes under its directory, reads back size, first bytes and type, and deletes', async () => {
    await store.write(GOOD, Readable.from([Buffer.from('hello '), Buffer.from('world')]), 'image/png', 100);
    expect(fs.existsSync(path.join(dir, 'avatars', '42', '6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f'))).toBe(true);
    expect(await store.head(GOOD)).toEqual({ size: 11 });
    expect((await store.readStart(GOOD, 5))?.toString()).toBe('hello');
    expect((await store.readStart(GOOD, 500))?.toString()).toBe('hello world');
    const opened = await store.open(GOOD);
    expect(opened?.meta).toEqual({ contentType: 'image/png', size: 11 });
    opened?.stream.destroy();
    // Write-once: a second write to the key is refused and changes nothing.
    await expect(store.write(GOOD, Readable.from([Buffer.from('other')]), 'image/png', 100)).rejects.toBeInstanceOf(
      ObjectExistsError,
    );
    expect(await store.head(GOOD)).toEqual({ size: 11 });
    expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
    await store.delete(GOOD);
    expect(await store.head(GOOD)).toBeNull();
    expect(await store.readStart(GOOD, 5)).toBeNull();
    expect(await store.open(GOOD)).toBeNull();
    await store.delete(GOOD); // deleting a missing object is fine
  });

  it('stops a body at maxBytes and leaves no file, not even a temporary one', async () => {
    const chunks = Array.from({ length: 10 }, () => Buffer.alloc(1024, 1));
    await expect(store.write(GOOD, Readable.from(chunks), 'image/png', 5 * 1024)).rejects.toBeInstanceOf(
      ObjectTooLargeError,
    );
    expect(await store.head(GOOD)).toBeNull();
    expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
    // Exactly maxBytes is allowed.
    await store.write(GOOD, Readable.from(chunks.slice(0, 5)), 'image/png', 5 * 1024);
    expect(await store.head(GOOD)).toEqual({ size: 5 * 1024 });
  });
});
