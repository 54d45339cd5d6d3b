/**
 * baremetal-operator's `use-irso` mode against the objects the hooks keep, for generated and cert-manager
 * certificates: a model of how BMO reads an Ironic (metal3-io/baremetal-operator, commit 02aa5059,
 * pkg/provisioner/ironic/factory.go) and of what Go's crypto/x509 then accepts, checked with node's crypto
 * against the certificate the Ironic serves, through a renewal and a CA rotation.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { parse } from 'yaml';
import { Type } from '@sinclair/typebox';
import type { KubeResource } from '../../src/cli/objects.js';
import { generateRpcCA, issueCertificate, type KeyPairPem } from '../../src/crypto/rpc-ca.js';
import { fakeSecrets } from '../helpers/hooks.js';
import { checked } from '../helpers/json.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { objAt, objAtOrEmpty, objsAt, present } from '../support/paths.js';

const NS = 'baremetal-operator-system';
const DAY = 24 * 60 * 60;
const PUBLISHED = 'ironic-bmo-ca';
const StringMap = Type.Record(Type.String(), Type.String());

/** What BMO ends up with: the endpoint, the basic-auth pair, and the PEM text of its trusted CA file. */
type BmoConfig = { readonly endpoint: string; readonly username: string; readonly password: string; readonly trusted?: string };

const secretData = (e: Emulator, name: string): Record<string, string> | undefined => {
  const secret = e.get('Secret', name, NS);
  if (secret === undefined) return undefined;
  return Object.fromEntries(Object.entries(checked(StringMap, secret['data'] ?? {}, 'Secret data')).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
};

/**
 * BMO's loadConfigFromIronicCR, step by step; an Error where BMO returns one (and retries later).
 */
const bmoLoadConfig = (e: Emulator, name: string): BmoConfig | Error => {
  // factory.go:442-451: the Ironic by IRONIC_NAME/IRONIC_NAMESPACE.
  const ironic = e.get('Ironic', name, NS);
  if (ironic === undefined) return new Error('failed to get Ironic resource');
  // factory.go:427-436 (ironicUnreadyReason): the Ready condition, with observedGeneration == metadata.generation.
  const conditions = objAtOrEmpty(ironic, 'status')['conditions'];
  const ready = Array.isArray(conditions) ? objsAt({ conditions }, 'conditions').find((c) => c['type'] === 'Ready') : undefined;
  if (ready === undefined || ready['observedGeneration'] !== ironic.metadata.generation) return new Error("reconciliation hasn't started yet");
  if (ready['status'] !== 'True') return new Error(String(ready['message']));
  const spec = objAt(ironic, 'spec');
  const tls = objAtOrEmpty(spec, 'tls');
  // factory.go:480-502: spec.apiCredentialsName, keys `username` and `password`.
  const auth = secretData(e, typeof spec['apiCredentialsName'] === 'string' ? spec['apiCredentialsName'] : '');
  if (auth?.['username'] === undefined || auth['password'] === undefined) return new Error('auth secret must contain username and password');
  // factory.go:458 and 469-475: http unless spec.tls.certificateName is set, then https.
  const certificateName = typeof tls['certificateName'] === 'string' ? tls['certificateName'] : '';
  if (certificateName === '') return { endpoint: `http://${name}.${NS}.svc`, username: auth['username'], password: auth['password'] };
  // factory.go:505-529: that Secret must exist; its `tls.crt` (when present) becomes the trusted CA file.
  const certificate = secretData(e, certificateName);
  if (certificate === undefined) return new Error(`failed to get TLS secret ${NS}/${certificateName}`);
  const trusted = certificate['tls.crt'];
  return { endpoint: `https://${name}.${NS}.svc`, username: auth['username'], password: auth['password'], ...(trusted !== undefined && { trusted }) };
};

/** Every CERTIFICATE block of a PEM file: the root pool Go builds from TrustedCAFile (AppendCertsFromPEM). */
const rootPool = (pem: string): X509Certificate[] =>
  pem
    .split(/(?<=-----END CERTIFICATE-----)/)
    .filter((p) => p.includes('-----BEGIN CERTIFICATE-----'))
    .map((p) => new X509Certificate(p.trim()));

const validAt = (c: X509Certificate, now: string): boolean => Date.parse(c.validFrom) <= Date.parse(now) && Date.parse(now) <= Date.parse(c.validTo);

/**
 * What crypto/x509's Certificate.Verify (src/crypto/x509/verify.go, about lines 590-610: isValid, then
 * VerifyHostname, then `if opts.Roots.contains(c)` or buildChains) accepts for one leaf against `roots`: the host
 * name of the endpoint must be in the leaf's SANs, the leaf valid now, and either the leaf itself in the
 * pool or a pool certificate that issued it and whose key signed it (also valid now). Roots are not
 * required to be CAs by Go; the check here is stricter and requires it, since BMO must trust a CA, not a
 * leaf, to survive a renewal.
 */
const goVerifies = (leafPem: string, roots: readonly X509Certificate[], host: string, now: string): boolean => {
  const leaf = new X509Certificate(leafPem);
  if (leaf.checkHost(host, { subject: 'never' }) === undefined || !validAt(leaf, now)) return false;
  if (roots.some((r) => r.fingerprint256 === leaf.fingerprint256)) return true;
  return roots.some((root) => root.ca && validAt(root, now) && leaf.checkIssued(root) && leaf.verify(root.publicKey));
};

/** BMO's view after a sync: https to the Service name, and the served certificate verifies. */
const bmoTrusts = (t: Test, e: Emulator, served: string, what: string): void => {
  const config = bmoLoadConfig(e, 'ironic');
  if (config instanceof Error) {
    t.fail(`${what}: BMO cannot load its configuration: ${config.message}`);
    return;
  }
  t.equal(config.endpoint, `https://ironic.${NS}.svc`, `${what}: BMO talks https`);
  t.ok(goVerifies(served, rootPool(present(config.trusted, 'the trusted CA file')), `ironic.${NS}.svc`, e.now), `${what}: BMO trusts what is served`);
};

const settle = async (t: Test, e: Emulator, what: string): Promise<void> => {
  const result = await e.runUntilStable({ autoReady: true, maxRounds: 12 });
  t.ok(result.stable, `${what}: settles`);
  t.same(result.errors, [], `${what}: no sync failed`);
};

const withPublishedCA = (yaml: string): KubeResource[] =>
  yaml
    .split(/^---$/m)
    .map((doc): unknown => parse(doc))
    .filter((doc): doc is KubeResource => typeof doc === 'object' && doc !== null)
    .map((doc) =>
      doc.kind === 'Ironic'
        ? {
            ...doc,
            spec: {
              ...objAt(doc, 'spec'),
              apiCredentialsName: 'ironic-api-credentials',
              tls: { ...objAtOrEmpty(doc, 'spec', 'tls'), certificateName: PUBLISHED },
            },
          }
        : doc,
    );

/** The Service names a pod's certificate carries (the generated-TLS init container issues for these and more). */
const SERVICE_NAMES = ['ironic', `ironic.${NS}`, `ironic.${NS}.svc`];

/** The CA that signs the pods' certificates now: the tls-ca Secret the pod template points at. */
const signingCA = (e: Emulator): KeyPairPem => {
  const annotations = objAtOrEmpty(present(e.get('Deployment', 'ironic-service', NS)), 'spec', 'template', 'metadata', 'annotations');
  const annotation = annotations['ironic.metal3.io/tls-ca-version'];
  const version = (typeof annotation === 'string' ? annotation : '').slice(0, 10);
  const data = present(secretData(e, `ironic-tls-ca-${version}`), 'the signing CA Secret');
  return { certPem: present(data['tls.crt']), keyPem: present(data['tls.key']) };
};

const servedByPod = (e: Emulator): string =>
  issueCertificate({ ca: signingCA(e), dnsNames: SERVICE_NAMES, ips: ['192.0.2.2'], now: new Date(e.now), validityDays: 90 }).certPem;

t.test('the BMO model: plain http without certificateName, refusal before Ready of the current generation', async (t) => {
  const e = await startEmulator({ secrets: fakeSecrets() });
  t.teardown(() => e.close());
  const [ironic] = withPublishedCA(readFileSync('examples/generated-tls.yaml', 'utf8'));
  e.apply({ ...present(ironic), spec: { ...objAt(ironic, 'spec'), tls: { generateCertificate: true } } });
  t.match(bmoLoadConfig(e, 'ironic'), { message: "reconciliation hasn't started yet" }, 'BMO waits for a Ready of this generation');
  await settle(t, e, 'without certificateName');
  t.match(bmoLoadConfig(e, 'ironic'), { endpoint: `http://ironic.${NS}.svc` }, 'without certificateName BMO would call http: the reason for the published CA');
});

t.test('generated certificates: BMO trusts the published CA through renewals and a CA rotation', async (t) => {
  const e = await startEmulator({ secrets: { ...fakeSecrets(), rpcCA: generateRpcCA } });
  t.teardown(() => e.close());
  e.apply(withPublishedCA(readFileSync('examples/generated-tls.yaml', 'utf8')));
  await settle(t, e, 'issued');
  const first = servedByPod(e);
  bmoTrusts(t, e, first, 'issued');
  t.match(bmoLoadConfig(e, 'ironic'), { username: /./, password: /./ }, 'BMO finds the credentials the spec names');

  const caStart = Date.parse(new X509Certificate(signingCA(e).certPem).validFrom);
  const caEnd = Date.parse(new X509Certificate(signingCA(e).certPem).validTo);
  e.advance((caStart + 61 * DAY * 1000 - Date.parse(e.now)) / 1000);
  await settle(t, e, 'renewed');
  bmoTrusts(t, e, servedByPod(e), 'after a renewal');

  // A year before the CA expires the next one is published; pods not yet rolled still serve the old CA's.
  e.advance((caEnd - 365 * DAY * 1000 - Date.parse(e.now)) / 1000 + 60);
  const beforeStaging = servedByPod(e);
  await settle(t, e, 'staged');
  t.equal(rootPool(present(secretData(e, PUBLISHED))['tls.crt'] ?? '').length, 2, 'both CAs are published');
  bmoTrusts(t, e, beforeStaging, 'the old CA while the next one is staged');
  const oldCA = signingCA(e).certPem;
  e.advance(31 * DAY);
  await settle(t, e, 'promoted');
  t.not(signingCA(e).certPem, oldCA, 'the new CA signs');
  bmoTrusts(t, e, servedByPod(e), 'a certificate of the new CA');
});

t.test('cert-manager: BMO trusts the published ca.crt through a re-issue and a CA rotation', async (t) => {
  const e = await startEmulator({ certManager: true, namespace: NS });
  t.teardown(() => e.close());
  e.apply(withPublishedCA(readFileSync('examples/cert-manager/ironic.yaml', 'utf8')));
  await settle(t, e, 'issued');
  const served = (): string => present(secretData(e, 'ironic-serving-tls'))['tls.crt'] ?? '';
  bmoTrusts(t, e, served(), 'issued');

  // A re-issue by the same CA (new names): the published CA does not change.
  const before = present(secretData(e, PUBLISHED))['tls.crt'];
  const ironic = present(e.get('Ironic', 'ironic', NS));
  e.apply({ ...ironic, spec: { ...objAt(ironic, 'spec'), networking: { interface: 'eth1', ipAddress: '192.0.2.2', externalIP: '203.0.113.9' } } });
  await settle(t, e, 're-issued');
  bmoTrusts(t, e, served(), 'after a re-issue');
  t.equal(present(secretData(e, PUBLISHED))['tls.crt'], before, 'the same CA stays published');

  // The issuer's CA is replaced: cert-manager writes a certificate of the new CA with the new ca.crt.
  const rotated = await generateRpcCA('rotated CA', new Date(e.now));
  const secret = present(e.get('Secret', 'ironic-serving-tls', NS));
  const leaf = issueCertificate({ ca: rotated, dnsNames: SERVICE_NAMES, ips: ['192.0.2.2', '203.0.113.9'], now: new Date(e.now), validityDays: 90 });
  const data = { 'tls.crt': leaf.certPem, 'tls.key': leaf.keyPem, 'ca.crt': rotated.certPem };
  e.apply({ ...secret, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) });
  await settle(t, e, 'rotated');
  bmoTrusts(t, e, leaf.certPem, 'a certificate of the rotated CA');
  t.notOk(goVerifies(leaf.certPem, rootPool(before ?? ''), `ironic.${NS}.svc`, e.now), 'the model refuses a certificate the trusted CA did not sign');
});
