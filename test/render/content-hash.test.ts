/**
 * objectContentHash: what restart annotations record of a Secret or ConfigMap. A ConfigMap's hash is kept by its
 * content's text; the answer must be the one worked out afresh, whatever was asked before.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import type { KubeObject } from '../../src/api/shared/hook.js';
import { configMapHashes, objectContentHash } from '../../src/render/references.js';

/** The definition: sha256 over field, key and value of `data` then `binaryData`, keys sorted. */
const reference = (object: KubeObject): string => {
  const hash = createHash('sha256');
  for (const field of ['data', 'binaryData']) {
    const data = object[field];
    if (typeof data !== 'object' || data === null || Array.isArray(data)) continue;
    const map = data as Record<string, unknown>;
    for (const key of Object.keys(map).sort()) hash.update(`${field}\0${key}\0${String(map[key])}\0`);
  }
  return hash.digest('hex');
};

const object = (kind: string, data: Record<string, string>, binaryData?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name: 'x', namespace: 'ns' },
  data,
  ...(binaryData && { binaryData }),
});

t.test('the hash of a Secret or ConfigMap is the definition, asked once or many times, in any key order', async (t) => {
  const map = fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 12 }), { maxKeys: 5 });
  fc.assert(
    fc.property(fc.constantFrom('Secret', 'ConfigMap'), map, fc.option(map, { nil: undefined }), (kind, data, binaryData) => {
      const first = object(kind, data, binaryData);
      const reordered = object(kind, Object.fromEntries(Object.entries(data).reverse()), binaryData);
      return [first, first, reordered].every((o) => objectContentHash(o) === reference(o));
    }),
    { numRuns: 1000 },
  );
  t.ok(configMapHashes.size() <= 64, `${String(configMapHashes.size())} ConfigMap hashes kept`);
  t.not(objectContentHash(object('ConfigMap', { a: 'b' })), objectContentHash(object('ConfigMap', { a: 'c' })), 'another content, another hash');
  t.equal(objectContentHash(object('ConfigMap', { a: 'b' })), objectContentHash(object('Secret', { a: 'b' })), 'the kind is not hashed');
  const large = object('ConfigMap', { bundle: 'x'.repeat(1024 * 1024 + 1) });
  t.equal(objectContentHash(large), reference(large), 'a ConfigMap too large to keep is hashed all the same');
});
