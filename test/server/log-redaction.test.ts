/**
 * The log redaction written by hand (src/server/logging.ts) blanks what pino's own `redact` option blanks for
 * REDACTED_PATHS, on any line: pino with that option is the oracle.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import t from 'tap';
import { REDACTED_PATHS, createLogger, redactLogFields } from '../../src/server/logging.js';

/** A logger writing into a list of parsed lines. */
const capture = (build: (stream: Writable) => { info: (fields: object, msg: string) => void }) => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: build(stream), lines };
};

const KEYS = [
  'body',
  'payload',
  'req',
  'request',
  'headers',
  'authorization',
  'parent',
  'children',
  'related',
  'object',
  'data',
  'stringData',
  'password',
  'htpasswd',
  'token',
  'spec',
  'x',
];
const key = fc.constantFrom(...KEYS);
const leaf = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null));
const tree = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.dictionary(key, tie('node'), { maxKeys: 4 }), fc.array(tie('node'), { maxLength: 3 })),
})).node;
const line = fc.dictionary(key, tree, { maxKeys: 6 });

t.test('the same fields are blanked as pino redact blanks for REDACTED_PATHS, on any line', async (t) => {
  const oracle = capture((stream) => pino({ base: null, timestamp: false, redact: { paths: REDACTED_PATHS, censor: '[Redacted]' } }, stream));
  const ours = capture((stream) => pino({ base: null, timestamp: false, formatters: { log: redactLogFields } }, stream));
  fc.assert(
    fc.property(line, (fields) => {
      const before = JSON.stringify(fields);
      ours.log.info(fields, 'm');
      // pino's redaction blanks in place and puts the values back, but not always all of them (a "*.*." path
      // under another blanked one): the oracle gets a copy, and ours must leave the caller's object alone.
      oracle.log.info(structuredClone(fields), 'm');
      return JSON.stringify(fields) === before && JSON.stringify(oracle.lines.at(-1)) === JSON.stringify(ours.lines.at(-1));
    }),
    { numRuns: 2000 },
  );
  t.pass('the property holds');
});

t.test('an error logged with secrets in its own fields has them blanked, and its message and stack kept', async (t) => {
  const { log, lines } = capture((stream) => createLogger('info', {}, stream));
  const error = Object.assign(new Error('cannot hash'), { data: { password: 'p' }, detail: { data: 'd', ok: 1 } });
  log.info({ err: error, hook: 'ironic/sync', parent: 'ns/name', password: 'p' }, 'hook call failed');
  t.match(lines[0], {
    err: { type: 'Error', message: 'cannot hash', stack: /cannot hash/, data: '[Redacted]', detail: { data: '[Redacted]', ok: 1 } },
    hook: 'ironic/sync',
    parent: 'ns/name',
    password: '[Redacted]',
    level: 'info',
  });
  t.equal(error.data.password, 'p', 'the error itself is unchanged');
});
