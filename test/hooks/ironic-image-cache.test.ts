/**
 * The IronicImageCache: validation, customize, the sync and finalize decisions, the Ironic side of
 * spec.imageCacheName. The download and prune containers run with bash in test/render/image-cache-download.test.ts.
 */
import { present } from '../support/paths.js';
import t from 'tap';
import { ironic, testServer, type Obj } from '../helpers/hooks.js';
import { readyImageCache, related } from '../fixtures/ironic-scenarios.js';
import { CACHE_TLS, imageCache, ironicUsing, syncedCacheChildren } from '../fixtures/image-cache-scenarios.js';
import { validateIronicImageCache } from '../../src/api/validate.js';
import { validateIronic } from '../../src/api/ironic/validate.js';
import { customizeIronicImageCache } from '../../src/hooks/ironic-image-cache.js';
import { customizeIronic } from '../../src/hooks/ironic.js';
import { renderCacheStatefulSet } from '../../src/render/image-cache/render.js';
import { parseIronicImageCache } from '../../src/api/ironic-image-cache/parse.js';
import type { IronicImageCacheModel } from '../../src/api/ironic-image-cache/model.js';
import { testConfig } from '../helpers/hooks.js';
import { resolveImageCache } from '../../src/render/ironic/image-cache.js';
import type { CustomizeRequest, ObjectMap } from '../../src/api/shared/hook.js';

type Response = { status: Obj & { conditions: Obj[] }; children: Obj[]; finalized?: boolean; resyncAfterSeconds?: number };

const provisioning = { interface: 'eth1', ipAddress: '192.0.2.2' };

t.test('validation: what is accepted and what is refused, naming the field', async (t) => {
  const accepted: Obj[] = [
    {},
    { agentBranch: 'stable/2025.1', agentDownloadURL: 'https://mirror.example.com/ipa', agentMinimumModificationTime: '2026-01-01T00:00:00+02:00' },
    { architectures: [{ name: 'aarch64', filename: 'ipa-centos9-master-aarch64.tar.gz' }, { name: 'x86_64' }] },
    { storage: { ephemeral: true, storageClassName: '' }, tolerations: [{ operator: 'Exists' }], nodeSelector: { 'kubernetes.io/arch': 'arm64' } },
    { proxy: { httpsProxy: 'http://proxy:3128', noProxy: '.svc' }, tlsCertificateName: 'ipa-tls' },
    {
      priorityClassName: 'ironic.critical-1',
      resources: { httpd: { requests: { memory: '1024Mi' }, limits: { memory: '1Gi' } }, 'download-aarch64': {}, prune: { limits: { cpu: 1 } } },
    },
    { priorityClassName: '' },
  ];
  for (const spec of accepted) t.same(validateIronicImageCache(spec), [], JSON.stringify(spec));
  const refused: [Obj | null, string, RegExp][] = [
    [null, 'spec', /must be an object/],
    [{ agentDownloadURL: 'mirror' }, 'spec.agentDownloadURL', /./],
    [{ agentMinimumModificationTime: '2026-02-30T00:00:00Z' }, 'spec.agentMinimumModificationTime', /./],
    [{ architectures: [] }, 'spec.architectures', /./],
    [{ architectures: [{ name: 'ppc64le' }] }, 'spec.architectures[0].name', /./],
    [{ architectures: [{ name: 'x86_64', filename: '../x' }] }, 'spec.architectures[0].filename', /./],
    [{ architectures: [{ name: 'x86_64' }, { name: 'x86_64' }] }, 'spec.architectures', /only once.*"x86_64"/],
    [
      { architectures: [{ name: 'x86_64' }, { name: 'aarch64' }] },
      'spec.architectures[1].filename',
      /^filename is required for architecture "aarch64": .* is the x86_64 IPA/,
    ],
    [{ proxy: { httpsProxy: 'http://user:secret@proxy:3128' } }, 'spec.proxy.httpsProxy', /^httpsProxy has a user name or password, which is not supported/],
    [{ storage: { ephemeral: true, storageClassName: 'fast' } }, 'spec.storage.storageClassName', /ephemeral/],
    [{ storage: { size: '0' } }, 'spec.storage.size', /greater than zero/],
    [{ storage: { size: '1Qi' } }, 'spec.storage.size', /./],
    [{ tolerations: [{ operator: 7 }] }, 'spec.tolerations[0]', /not a valid Kubernetes toleration/],
    [{ nodeSelector: { ' ': 'x' } }, 'spec.nodeSelector[" "]', /must not be empty/],
    [
      { nodeSelector: { 'Example.com/arch': 'amd64' } },
      'spec.nodeSelector["Example.com/arch"]',
      /^the prefix of the node selector key "Example\.com\/arch" must be a lower-case DNS subdomain/,
    ],
    [
      { nodeSelector: { 'kubernetes.io/arch': 'amd 64' } },
      'spec.nodeSelector["kubernetes.io/arch"]',
      /^the value "amd 64" of the node selector key "kubernetes\.io\/arch" is not a label value/,
    ],
    [{ proxy: { httpsProxy: 'proxy:3128' } }, 'spec.proxy.httpsProxy', /is not a proxy URL/],
    [{ proxy: { noProxy: 'a b' } }, 'spec.proxy.noProxy', /is not a host name/],
    [{ priorityClassName: 'System_Critical' }, 'spec.priorityClassName', /./],
    [
      { resources: { ironic: { requests: { cpu: '1' } } } },
      'spec.resources.ironic',
      /^"ironic" is not a container of an IronicImageCache: set resources for download-x86-64, download-aarch64, prune, httpd$/,
    ],
    [{ resources: { 'download-x86_64': {} } }, 'spec.resources["download-x86_64"]', /is not a container of an IronicImageCache/],
    [
      { resources: { 'download-x86-64': { requests: { cpu: '2' }, limits: { cpu: '1500m' } } } },
      'spec.resources["download-x86-64"].requests.cpu',
      /^the "cpu" request "2" is more than its limit "1500m"/,
    ],
    [{ resources: { httpd: { requests: { memory: '1e999' } } } }, 'spec.resources.httpd.requests.memory', /not a Kubernetes quantity/],
    [{ resources: { prune: { limits: { cpu: '-1' } } } }, 'spec.resources.prune.limits.cpu', /negative/],
  ];
  for (const [spec, path, message] of refused) {
    const problems = validateIronicImageCache(spec);
    t.ok(
      problems.some((p) => p.path === path && message.test(p.message)),
      `${JSON.stringify(spec)} is refused at ${path}: ${JSON.stringify(problems)}`,
    );
  }
});

t.test("the downloader settings: the hook server's, each replaced by the spec's; the proxy in both letter cases", async (t) => {
  const base = testConfig().render;
  const config = {
    ...base,
    clusterDomain: 'cluster.local',
    ipaSettings: {
      IPA_BASEURI: 'https://operator.example.com/ipa',
      IPA_FLAVOR: 'centos9',
      IPA_ARCH: 'ignored',
      HTTP_PROXY: 'http://op:3128',
      HTTPS_PROXY: 'http://op:3128',
      NO_PROXY: 'op.example.com',
    },
  };
  const modelOf = (spec: Obj): IronicImageCacheModel => {
    const parsed = parseIronicImageCache(spec);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    return parsed.model;
  };
  const envOf = (spec: Obj): Record<string, string> => {
    const set = renderCacheStatefulSet({ name: 'ipa', namespace: 'metal3', model: modelOf(spec), config });
    const container = set.spec?.template.spec?.initContainers?.[0];
    return Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value ?? '']));
  };
  t.same(
    envOf({}),
    {
      IPA_ARCH: 'x86_64',
      IPA_BASEURI: 'https://operator.example.com/ipa',
      IPA_FLAVOR: 'centos9',
      HTTP_PROXY: 'http://op:3128',
      http_proxy: 'http://op:3128',
      HTTPS_PROXY: 'http://op:3128',
      https_proxy: 'http://op:3128',
      NO_PROXY: 'op.example.com,localhost,127.0.0.1,::1,.svc,.svc.cluster.local',
      no_proxy: 'op.example.com,localhost,127.0.0.1,::1,.svc,.svc.cluster.local',
    },
    "the hook server's settings",
  );
  t.match(
    envOf({ agentDownloadURL: 'https://mirror.example.com/ipa', proxy: { httpsProxy: 'http://mine:3128', noProxy: 'mirror.example.com' } }),
    {
      IPA_BASEURI: 'https://mirror.example.com/ipa',
      HTTP_PROXY: 'http://op:3128',
      HTTPS_PROXY: 'http://mine:3128',
      NO_PROXY: 'mirror.example.com,localhost,127.0.0.1,::1,.svc,.svc.cluster.local',
    },
    'the spec wins field by field',
  );
  const none = renderCacheStatefulSet({ name: 'ipa', namespace: 'metal3', model: modelOf({ proxy: { noProxy: '.example.com' } }), config: base });
  t.same(
    none.spec?.template.spec?.initContainers?.[0]?.env?.filter((e) => /proxy/i.test(e.name)),
    [
      { name: 'NO_PROXY', value: '.example.com' },
      { name: 'no_proxy', value: '.example.com' },
    ],
    'without a proxy, nothing is added',
  );
});

t.test('an Ironic naming a cache refuses the download settings the cache replaces', async (t) => {
  t.same(validateIronic({ imageCacheName: 'ipa', deployRamdisk: { disableDownloader: true } }), [], 'disableDownloader changes nothing and is allowed');
  t.same(validateIronic({ images: { deployRamdiskBranch: 'stable/2025.1' } }), [], 'without a cache the branch is fine');
  const problems = validateIronic({ imageCacheName: 'ipa', images: { deployRamdiskDownloader: 'x' } });
  t.match(problems, [{ path: 'spec.imageCacheName', message: /^imageCacheName cannot be used with images\.deployRamdiskDownloader: / }]);
  const ipxe = validateIronic({
    imageCacheName: 'ipa',
    networking: { ...provisioning, dhcp: { networkCIDR: '192.0.2.0/24' } },
    tls: { generateCertificate: true, ipxe: true },
  });
  t.match(ipxe, [
    { path: 'spec.imageCacheName', message: /^imageCacheName cannot be used with tls\.ipxe: iPXE over TLS loads IPA only from this Ironic's own httpd/ },
  ]);
});

t.test('customize: the cache asks for its certificate and the Ironics of its namespace; an Ironic asks for its cache by name', async (t) => {
  const own = [
    { apiVersion: 'v1', resource: 'configmaps', namespace: 'metal3', names: ['ipa-ipa-cache-config'] },
    { apiVersion: 'apps/v1', resource: 'statefulsets', namespace: 'metal3', names: ['ipa-ipa-cache'] },
    { apiVersion: 'v1', resource: 'services', namespace: 'metal3', names: ['ipa-ipa-cache'] },
  ];
  const rules = (spec: Obj) => customizeIronicImageCache({ parent: imageCache(spec) } as unknown as CustomizeRequest).relatedResources;
  t.same(rules({}), [{ apiVersion: 'ironic.metal3.io/v1alpha1', resource: 'ironics', namespace: 'metal3' }, ...own]);
  t.same(rules({ tlsCertificateName: 'ipa-tls' }), [
    { apiVersion: 'v1', resource: 'secrets', namespace: 'metal3', names: ['ipa-tls'] },
    { apiVersion: 'ironic.metal3.io/v1alpha1', resource: 'ironics', namespace: 'metal3' },
    ...own,
  ]);
  const ironicRules = customizeIronic({ parent: ironic({ imageCacheName: 'ipa' }) } as unknown as CustomizeRequest).relatedResources;
  t.match(ironicRules, [{ apiVersion: 'ironic.metal3.io/v1alpha1', resource: 'ironicimagecaches', namespace: 'metal3', names: ['ipa'] }]);
  t.notOk(
    customizeIronic({ parent: ironic({}) } as unknown as CustomizeRequest).relatedResources.some((r) => r.resource === 'ironicimagecaches'),
    'no cache named, none asked for',
  );
});

t.test('the status reports what is served: the previous branch while a new download runs', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const first = imageCache({ agentBranch: 'stable/2025.1', agentMinimumModificationTime: '2026-01-01T00:00:00Z' });
  const children = await syncedCacheChildren(app, { parent: first, children: {}, related: {} });
  const ready = (await app.inject({ method: 'POST', url: '/ironicimagecache/sync', payload: { parent: first, children, related: {} } })).json<Response>();
  t.match(ready.status, { agentBranch: 'stable/2025.1', agentMinimumModificationTime: '2026-01-01T00:00:00Z', conditions: [{ status: 'True' }] });
  // The branch changes: the StatefulSet has the new template and rolls (observed at an older generation), the status keeps the old branch.
  const parent = imageCache(
    { agentBranch: 'master' },
    { status: ready.status, metadata: { name: 'ipa', namespace: 'metal3', uid: '7f1e4c7e-0000-4000-8000-000000000003', generation: 2 } },
  );
  const updated = await syncedCacheChildren(app, { parent, children: {}, related: {} });
  const set = present(Object.values(updated['StatefulSet.apps/v1'] ?? {})[0], 'the StatefulSet');
  const rolling = { ...updated, 'StatefulSet.apps/v1': { 'metal3/ipa-ipa-cache': { ...set, metadata: { ...(set['metadata'] as Obj), generation: 2 } } } };
  const next = (await app.inject({ method: 'POST', url: '/ironicimagecache/sync', payload: { parent, children: rolling, related: {} } })).json<Response>();
  t.match(next.status, {
    agentBranch: 'stable/2025.1',
    agentMinimumModificationTime: '2026-01-01T00:00:00Z',
    conditions: [{ status: 'False', reason: 'DownloadInProgress', message: /downloads run first \(kubectl logs ipa-ipa-cache-0/ }],
  });
  t.notOk(
    'agentBranch' in
      (await app.inject({ method: 'POST', url: '/ironicimagecache/sync', payload: { parent: imageCache({}), children: {}, related: {} } })).json<Response>()
        .status,
    'nothing served yet, no branch',
  );
});

t.test('TLS: the images are served over https, the Service on 443, the Secret hash rolls the pod', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const body = (
    await app.inject({
      method: 'POST',
      url: '/ironicimagecache/sync',
      payload: { parent: imageCache({ tlsCertificateName: 'ipa-tls' }), children: {}, related: related(CACHE_TLS) },
    })
  ).json<Response>();
  t.match(body.status, { tlsCertificateName: 'ipa-tls', images: [{ kernel: /^https:\/\/ipa-ipa-cache\.metal3\.svc\/images\// }] });
  const service = present(
    body.children.find((c) => c['kind'] === 'Service'),
    'the Service',
  );
  t.match(service, { spec: { ports: [{ name: 'https', port: 443, targetPort: 'https' }] } });
  const config = body.children.find((c) => c['kind'] === 'ConfigMap') as { data: Record<string, string> };
  t.match(config.data['httpd.conf'], /Listen 8443\n[\s\S]*LoadModule ssl_module[\s\S]*SSLEngine on/);
  const invalid = (
    await app.inject({
      method: 'POST',
      url: '/ironicimagecache/sync',
      payload: { parent: imageCache({ tlsCertificateName: 'ipa-tls' }), children: {}, related: related({ ...CACHE_TLS, data: { 'tls.crt': 'Qw==' } }) },
    })
  ).json<Response>();
  t.match(invalid.status.conditions[0], { status: 'False', reason: 'InvalidReference', message: /Secret metal3\/ipa-tls has no tls\.key/ });
});

t.test('an object in the way is reported and nothing is rendered', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const foreign = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ipa-ipa-cache', namespace: 'metal3', uid: 'someone-else' } };
  const body = (
    await app.inject({ method: 'POST', url: '/ironicimagecache/sync', payload: { parent: imageCache({}), children: {}, related: related(foreign) } })
  ).json<Response>();
  t.match(body.status.conditions[0], {
    status: 'False',
    reason: 'ResourceConflict',
    message: /Service metal3\/ipa-ipa-cache already exists and does not belong to this IronicImageCache: delete it/,
  });
  t.same(body.children, []);
});

t.test('finalize is blocked while an Ironic uses the cache, then deletes and releases', async (t) => {
  const app = testServer();
  t.teardown(() => app.close());
  const children = await syncedCacheChildren(app, { parent: imageCache({}), children: {}, related: {} });
  const metadata = { name: 'ipa', namespace: 'metal3', uid: '7f1e4c7e-0000-4000-8000-000000000003', generation: 1, deletionTimestamp: '2026-01-01T00:00:00Z' };
  const deleting = imageCache({}, { metadata });
  const finalize = async (payload: Obj): Promise<Response> =>
    (await app.inject({ method: 'POST', url: '/ironicimagecache/finalize', payload: { parent: deleting, finalizing: true, ...payload } })).json<Response>();
  const blocked = await finalize({ children, related: related(ironicUsing('ironic'), ironicUsing('other', 'another')) });
  t.equal(blocked.finalized, undefined, 'not finalized');
  t.equal(blocked.children.length, 3, 'everything kept');
  t.equal(blocked.resyncAfterSeconds, 30);
  t.match(blocked.status, {
    usedBy: ['ironic'],
    conditions: [{ type: 'Ready' }, { type: 'DeletionBlocked', reason: 'InUse', message: /still used by: ironic$/ }],
  });
  const releasing = await finalize({ children, related: related(ironicUsing('other', 'another')) });
  t.same(releasing.children, [], 'children deleted');
  t.equal(releasing.finalized, false, 'waits for them to be gone');
  t.match(releasing.status.conditions[0], { reason: 'Deleting', message: /3 resources remain/ });
  const released = await finalize({ children: {}, related: {} });
  t.equal(released.finalized, true);
  t.match(released.status.conditions[0], { message: 'the image cache has been removed' });
  const foreground = imageCache({}, { metadata: { ...metadata, finalizers: ['foregroundDeletion'] } });
  const late = (
    await app.inject({
      method: 'POST',
      url: '/ironicimagecache/finalize',
      payload: { parent: foreground, children, related: related(ironicUsing('ironic')), finalizing: true },
    })
  ).json<Response>();
  t.match(late.status.conditions[0], { reason: 'Deleting', message: /although ironic still use it \(deleted with foreground propagation/ });
});

t.test('an Ironic waits for its cache, and says why', async (t) => {
  const cases: [string, Obj[], RegExp][] = [
    ['missing', [], /^IronicImageCache metal3\/ipa named in spec\.imageCacheName was not found/],
    [
      'being deleted',
      [{ ...readyImageCache(), metadata: { name: 'ipa', namespace: 'metal3', deletionTimestamp: '2026-01-01T00:00:00Z' } }],
      /is being deleted; it keeps serving/,
    ],
    [
      'not ready',
      [readyImageCache({ conditions: [{ type: 'Ready', status: 'False', message: 'downloading' }] })],
      /^waiting for IronicImageCache metal3\/ipa to become ready: downloading$/,
    ],
    ['ready without images', [readyImageCache({ images: [{ architecture: 'x86_64' }] })], /^waiting for IronicImageCache metal3\/ipa to become ready/],
    ['no status', [{ ...readyImageCache(), status: undefined }], /^waiting for IronicImageCache metal3\/ipa to become ready$/],
    [
      'ready for an older spec',
      [{ ...readyImageCache(), metadata: { name: 'ipa', namespace: 'metal3', generation: 2 } }],
      /^waiting for IronicImageCache metal3\/ipa to become ready: its spec changed \(generation 2\)/,
    ],
  ];
  for (const [scenario, objects, message] of cases) {
    const result = resolveImageCache('ipa', related(...objects) as unknown as ObjectMap, 'metal3');
    t.match(result, { ok: false, message }, scenario);
  }
  t.same(resolveImageCache(undefined, {}, 'metal3'), { ok: true }, 'no cache named');
  const app = testServer();
  t.teardown(() => app.close());
  const body = (
    await app.inject({
      method: 'POST',
      url: '/ironic/sync',
      payload: { parent: ironic({ networking: provisioning, imageCacheName: 'ipa' }), children: {}, related: {} },
    })
  ).json<Response>();
  t.match(body.status.conditions[0], { status: 'False', reason: 'MissingReference', message: /IronicImageCache metal3\/ipa/ });
  t.same(body.children, [], 'nothing is started without the cache');
});
