/**
 * CEL parity for real (run by real-cluster.test.ts while the examples converge): for every CEL rule of the CRDs, a sample it must refuse and one it must accept (chosen by
 * the emulated evaluation of test/crd/cel-parity.test.ts and the TypeScript twin, which must agree), sent to the
 * real API server (`dryRun=All`). The API server refuses the first with the rule's message and does not
 * say it for the second. Transition rules (oldSelf) update a stored old object.
 *
 * The samples go to a copy of the CRDs in a group of their own (`parity.ironic.test`): the same schemas and
 * rules, but no controller watches them, so a stored old object starts no sync.
 */
import type { Test } from 'tap';
import fc from 'fast-check';
import { registerFormats } from '../../src/api/shared/formats.js';
import { crdOf } from '../../src/kinds/crds.js';
import { PARENT_KINDS } from '../../src/kinds/index.js';
import { ALL_RULES, crdOfKind, defaulted, keyOf, refusals, validate, type CelRule } from '../crd/cel-rules.js';
import type { KubeObject, Sample } from '../crd/cel-samples.js';
import { TWINS, type Entry } from '../crd/cel-twins.js';
import { URI_CASES } from '../fixtures/uri-cases.js';
import { isObj, valueAt, type Obj } from '../support/paths.js';
import { waitFor, type RealCluster } from '../support/real-cluster.js';
import type { KubeApi } from '../support/kube-api.js';

const GROUP = 'parity.ironic.test';
const NAMESPACE = 'cel-parity';
const VERSION = 'v1alpha1';

registerFormats();

/** A kind's CRD moved to GROUP. */
const parityCrd = (crd: Obj): Obj => {
  const spec = valueAt(crd, 'spec');
  const plural = String(valueAt(spec, 'names', 'plural'));
  if (!isObj(spec)) throw new Error('a CRD without spec');
  const { categories: _categories, ...names } = isObj(spec['names']) ? spec['names'] : {};
  return { ...crd, metadata: { name: `${plural}.${GROUP}` }, spec: { ...spec, group: GROUP, names } };
};

const pluralOf = (kind: string): string => `${kind.toLowerCase()}s`;

/** Where the emulated CEL and the twin say a sample stands for a rule: refused, accepted, or not usable. */
const verdictOf = (rule: CelRule, entry: Entry, raw: Sample): boolean | undefined => {
  const crd = crdOfKind(rule.kind);
  const stored: Sample = { object: defaulted(crd, raw.object), ...(raw.old && { old: defaulted(crd, raw.old) }) };
  const maskKey = 'twin' in entry ? entry.maskedBy?.key : undefined;
  if (maskKey !== undefined) {
    const masking = ALL_RULES.find((r) => r.kind === rule.kind && keyOf(r) === maskKey);
    if (masking === undefined || refusals(masking, stored.object, stored.old).some((r) => r.refused)) return undefined;
  }
  const found = refusals(rule, stored.object, stored.old);
  if (found.length === 0) return undefined;
  const refused = found.some((r) => r.refused);
  const problems = validate(rule.kind, stored.object, stored.old);
  const twin = 'twin' in entry ? found.some((r) => entry.twin(problems, r.path)) : entry.refuses(stored);
  return twin === refused ? refused : undefined;
};

/** Whether every rule of the kind accepts an object on create (so that it can be stored as an old object). */
const createsCleanly = (kind: string, object: KubeObject): boolean => {
  const stored = defaulted(crdOfKind(kind), object);
  return ALL_RULES.filter((r) => r.kind === kind).every((r) => !refusals(r, stored, undefined).some((found) => found.refused));
};

/**
 * The sample as sent: a rule without oldSelf is tried on create (on an update the API server ratchets a rule
 * over a value that did not change, which the emulation does not model); a transition rule on an update
 * whose old object can be stored.
 */
const asSent = (rule: CelRule, sample: Sample): Sample | undefined => {
  if (!rule.rule.includes('oldSelf')) return { object: sample.object };
  if (sample.old === undefined) return undefined;
  // The update of one object: the old one under the new one's name.
  const old = { ...sample.old, metadata: { ...sample.old.metadata, name: sample.object.metadata.name } };
  return createsCleanly(rule.kind, old) ? { object: sample.object, old } : undefined;
};

/** A sample the rule refuses and one it accepts, from its generator with a fixed seed. */
const pairOf = (rule: CelRule, entry: Entry): { refused?: Sample; accepted?: Sample } => {
  const pair: { refused?: Sample; accepted?: Sample } = {};
  for (const drawn of fc.sample(entry.samples, { numRuns: 3000, seed: 35 })) {
    const sample = asSent(rule, drawn);
    if (sample === undefined) continue;
    const verdict = verdictOf(rule, entry, sample);
    if (verdict === true && pair.refused === undefined) pair.refused = sample;
    if (verdict === false && pair.accepted === undefined) pair.accepted = sample;
    if (pair.refused !== undefined && pair.accepted !== undefined) break;
  }
  return pair;
};

/** The sample's object in GROUP and the test's namespace (its name kept: some rules read it). */
const moved = (object: KubeObject): Obj => ({
  ...object,
  apiVersion: `${GROUP}/${VERSION}`,
  metadata: { ...object.metadata, namespace: NAMESPACE },
});

/**
 * The API server's answer to a sample, as a message ('' when it accepts): a create with `dryRun=All`, or the
 * old object stored, the update sent with `dryRun=All`, and the old object deleted again.
 */
const sendSample = async (api: KubeApi, sample: Sample): Promise<string> => {
  const collection = `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${pluralOf(sample.object.kind)}`;
  const object = moved(sample.object);
  let answer: { readonly status: number; readonly body: unknown };
  if (sample.old === undefined) answer = await api.request('POST', `${collection}?dryRun=All`, object);
  else {
    const stored = await api.request('POST', collection, moved(sample.old));
    if (stored.status !== 201) return `the old object was refused: ${JSON.stringify(stored.body)}`;
    const path = `${collection}/${sample.object.metadata.name}`;
    const metadata = { ...sample.object.metadata, namespace: NAMESPACE, resourceVersion: valueAt(stored.body, 'metadata', 'resourceVersion') };
    answer = await api.request('PUT', `${path}?dryRun=All`, { ...object, metadata });
    await api.request('DELETE', path);
  }
  if (answer.status === 200 || answer.status === 201) return '';
  const message = valueAt(answer.body, 'message');
  return typeof message === 'string' ? message : JSON.stringify(answer.body);
};

/** Every CEL rule against the real API server, on the cluster of the suite. */
export const celParityOnRealServer = async (t: Test, cluster: RealCluster): Promise<void> => {
  const crds = PARENT_KINDS.map((k) => parityCrd(crdOf(k)));
  const applied = await cluster.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: crds }));
  t.equal(applied.code, 0, applied.stderr);
  await cluster.kubectl(['create', 'namespace', NAMESPACE]);
  await waitFor('the parity CRDs served', async () => {
    const answers = await Promise.all(
      PARENT_KINDS.map((k) => cluster.api.request('GET', `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${pluralOf(k.kind)}`)),
    );
    return answers.every((a) => a.status === 200) ? true : undefined;
  });
  for (const rule of ALL_RULES) {
    const key = keyOf(rule);
    const entry = TWINS[rule.kind]?.[key];
    if (entry === undefined) {
      t.fail(`${rule.kind} ${key}: no twin entry`);
      continue;
    }
    const { refused, accepted } = pairOf(rule, entry);
    t.ok(refused, `${rule.kind} ${key}: a sample it refuses`);
    t.ok(accepted, `${rule.kind} ${key}: a sample it accepts`);
    if (refused !== undefined) {
      const message = await sendSample(cluster.api, refused);
      t.ok(message.includes(rule.message), `${rule.kind} ${key}: the API server refuses ${JSON.stringify(refused)} with the rule's message`, {
        diag: { message },
      });
    }
    if (accepted !== undefined) {
      const message = await sendSample(cluster.api, accepted);
      t.notOk(message.includes(rule.message), `${rule.kind} ${key}: the API server does not refuse ${JSON.stringify(accepted)} for it`, { diag: { message } });
    }
  }
};

/**
 * The `uri` format as the real API server checks it, for every case of test/fixtures/uri-cases.ts (which the
 * hooks' format and the emulated API server are tested against): an Ironic whose externalCallbackURL is the
 * value, refused with the format's message exactly when the table says so.
 */
export const uriFormatOnRealServer = async (t: Test, cluster: RealCluster): Promise<void> => {
  const collection = `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/ironics?dryRun=All`;
  for (const { value, accepted } of URI_CASES) {
    const networking = { externalCallbackURL: value, imageServerExternalURL: 'https://images.example.com' };
    const answer = await cluster.api.request('POST', collection, {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Ironic',
      metadata: { name: 'uri', namespace: NAMESPACE },
      spec: { networking },
    });
    const message = valueAt(answer.body, 'message');
    const refused = typeof message === 'string' && message.includes('externalCallbackURL in body must be of type uri');
    t.equal(refused, !accepted, `${JSON.stringify(value)} is ${accepted ? 'accepted' : 'refused'} by the format`, { diag: { message } });
  }
};
