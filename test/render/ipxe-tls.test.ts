/**
 * iPXE over TLS as the images see it: the pod a sync renders with tls.ipxe satisfies the ironic-image
 * contract (/certs/ipxe with tls.crt and tls.key in httpd, ironic and dnsmasq; IPXE_TLS_PORT; custom firmware
 * in /shared/custom_ipxe_firmware, which dnsmasq now mounts) and the environment of metal3-io/utility-images
 * buildipxe.sh (IPXE_ENABLE_TLS, a source, IPXE_CERT_FILE used for CERT= and TRUST=, the chain host and
 * port, a writable embed script), and the firmware it leaves carries the names rundnsmasq copies.
 */
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueFromEnvironment } from '../../src/cli/issue-rpc-cert.js';
import { generateRpcCA } from '../../src/crypto/rpc-ca.js';
import { IPXE_BUILD_SCRIPT } from '../../src/render/ironic/features/ipxe-tls.js';
import { containerOf, envOf, podOf, syncFor, type Container } from '../helpers/render.js';
import type { Obj } from '../helpers/hooks.js';
import { TLS_SECRET, secret } from '../fixtures/ironic-scenarios.js';
import { TEST_LEAF } from '../fixtures/tls.js';

const network = { ipAddress: '192.0.2.2', interface: 'eth1', dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' } };
const spec = { networking: network, tls: { generateCertificate: true, ipxe: true } };

/** ironic-image's copy_ipxe_firmware: the files it copies (SNP_BASENAME `snponly`); others are skipped. */
const FIRMWARE_NAMES = ['undionly.kpxe', 'snponly-x86_64.efi', 'snponly-arm64.efi'];

const mountsOf = (c: Container | undefined): Record<string, { name: string; readOnly?: boolean }> =>
  Object.fromEntries((c?.volumeMounts ?? []).map((m) => [m.mountPath, m]));

/** The mount of `c` that holds `path`, and the path inside it. */
const mountFor = (c: Container | undefined, path: string): { name: string; readOnly?: boolean } | undefined =>
  (c?.volumeMounts ?? []).filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`)).sort((a, b) => b.mountPath.length - a.mountPath.length)[0];

t.test('the pod satisfies the image contract of iPXE over TLS', async (t) => {
  const pod = podOf((await syncFor(spec)).children);
  t.same(
    (pod.initContainers ?? []).map((c) => c.name),
    ['tls-certificate', 'ipxe-builder', 'ramdisk-downloader'],
    'the firmware is built once the certificate (and its CA) is there',
  );
  // tls-common.sh switches IPXE_TLS_SETUP on from /certs/ipxe/tls.crt and exits when tls.key is missing.
  for (const name of ['ironic', 'httpd', 'dnsmasq']) {
    const c = containerOf(pod, name);
    t.match(mountsOf(c)['/certs/ipxe'], { name: 'cert-ironic', readOnly: true }, `${name}: /certs/ipxe is the volume with tls.crt and tls.key`);
    t.equal(envOf(c)['IPXE_TLS_PORT'], '8084', `${name}: IPXE_TLS_PORT`);
  }
  const builder = containerOf(pod, 'ipxe-builder');
  const httpd = containerOf(pod, 'httpd');
  const dnsmasq = containerOf(pod, 'dnsmasq');
  const env = envOf(builder);
  // runhttpd fails without the firmware; rundnsmasq serves it instead of its own when the directory is readable.
  const firmwareDir = env['IPXE_CUSTOM_FIRMWARE_DIR'] ?? '';
  t.equal(firmwareDir, '/shared/custom_ipxe_firmware', "ironic-image's IPXE_CUSTOM_FIRMWARE_DIR (not set in httpd and dnsmasq: their default)");
  t.equal(envOf(httpd)['IPXE_CUSTOM_FIRMWARE_DIR'], undefined);
  for (const c of [builder, httpd, dnsmasq]) {
    t.equal(mountFor(c, firmwareDir)?.name, 'ironic-shared', `${c?.name ?? ''}: the firmware directory is on the shared volume`);
  }
  t.notOk(mountFor(dnsmasq, firmwareDir)?.readOnly, 'dnsmasq writes /shared/tftpboot');
  t.match(httpd?.ports, [{}, {}, {}, { name: 'ipxe-tls', containerPort: 8084, hostPort: 8084 }], 'httpd serves the iPXE vhost on the host network');
  const probe = httpd?.readinessProbe;
  t.equal(
    probe?.exec?.command?.at(-1),
    'https://127.0.0.1:8084/images/ironic-python-agent.kernel',
    'plain HTTP denies everything with iPXE TLS: the probe uses the iPXE vhost',
  );
  // buildipxe.sh: `[[ $IPXE_ENABLE_TLS == true ]]` (set -u: it must be set), a source, the CA, where to chain.
  t.equal(env['IPXE_ENABLE_TLS'], 'true');
  t.same(
    [env['IPXE_BUILD_FROM_CACHE'], env['IPXE_BUILD_FROM_REPO']],
    ['true', 'false'],
    'built from the source the command cloned (the cache, at IPXE_SHARED_FIRMWARE_SOURCE)',
  );
  t.equal(mountFor(builder, env['IPXE_SHARED_FIRMWARE_SOURCE'] ?? '/shared/ipxe-source')?.name, 'ipxe-builder-scratch', 'cloned into a writable directory');
  t.equal(env['IPXE_CERT_FILE'], '/certs/ipxe/ca.crt', 'CERT= and TRUST= get the CA bundle the issuer writes');
  t.match(mountFor(builder, env['IPXE_CERT_FILE'] ?? ''), { name: 'cert-ironic', readOnly: true });
  t.equal(env['IPXE_CHAIN_HOST'], '192.0.2.2', 'the embedded script chains to the provisioning address nodes reach');
  t.equal(env['IPXE_TLS_PORT'], envOf(httpd)['IPXE_TLS_PORT'], 'on the port httpd serves');
  const embed = mountFor(builder, env['IPXE_EMBED_SCRIPT'] ?? '/bin/embed.ipxe');
  t.ok(embed !== undefined && embed.readOnly !== true, 'the embed script is written to a writable mount (the root filesystem is read-only)');
  t.equal(mountFor(builder, '/tmp/ipxe-source')?.name, 'ipxe-builder-scratch', 'the source is built in a writable /tmp');
  t.match(builder?.securityContext, { runAsUser: 997, runAsGroup: 994, readOnlyRootFilesystem: true });
});

/**
 * Runs the builder's command with its own environment, a stub git (which clones a tree with iPXE's
 * config/local directory) and a stub buildipxe.sh (which checks what the real one reads and copies what it
 * copies: bin/undionly.kpxe and bin-${ARCH}-efi/snponly.efi). Returns the firmware directory and the git calls.
 */
const runBuilder = (builderEnv: Record<string, string>, runs = 1): { firmware: string; source: string; gitCalls: string[] } => {
  const dir = mkdtempSync(join(tmpdir(), 'ipxe-firmware-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const gitLog = join(dir, 'git.log');
  // git fails like the real one when the destination exists.
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/bash\necho "$*" >> ${gitLog}\ndest="\${@: -1}"\n[[ ! -e "$dest" ]] || { echo "destination path '$dest' already exists" >&2; exit 128; }\nmkdir -p "$dest/src/config/local"\ntouch "$dest/src/config/local/.gitignore"\n`,
  );
  const stub = join(bin, 'buildipxe.sh');
  writeFileSync(
    stub,
    [
      '#!/bin/bash',
      'set -eu',
      '[[ "$IPXE_BUILD_FROM_CACHE" == true && -r "$IPXE_SHARED_FIRMWARE_SOURCE" ]] || { echo "no cache" >&2; exit 1; }',
      // What config/local/general.h must hold for undionly.kpxe to speak HTTPS (iPXE >= 2.0 undefines it for BIOS).
      'grep -qx "#define DOWNLOAD_PROTO_HTTPS" "$IPXE_SHARED_FIRMWARE_SOURCE/src/config/local/general.h"',
      'mkdir -p "$IPXE_CUSTOM_FIRMWARE_DIR"',
      'echo bios > "$IPXE_CUSTOM_FIRMWARE_DIR/undionly.kpxe"',
      'echo efi > "$IPXE_CUSTOM_FIRMWARE_DIR/snponly.efi"',
      '',
    ].join('\n'),
  );
  for (const f of ['git', 'buildipxe.sh']) chmodSync(join(bin, f), 0o755);
  const firmware = join(dir, 'custom_ipxe_firmware');
  const source = join(dir, 'data', 'ipxe-source');
  const env = { ...builderEnv, PATH: `${bin}:${process.env['PATH'] ?? ''}`, IPXE_CUSTOM_FIRMWARE_DIR: firmware, IPXE_SHARED_FIRMWARE_SOURCE: source };
  for (let i = 0; i < runs; i++) {
    execFileSync('bash', ['-c', IPXE_BUILD_SCRIPT.replace('/bin/buildipxe.sh', stub).replace(' /tmp/ipxe-source', ` ${join(dir, 'tmp-source')}`)], {
      env,
      stdio: 'pipe',
    });
  }
  return { firmware, source, gitCalls: readFileSync(gitLog, 'utf8').trim().split('\n') };
};

t.test('the firmware the builder leaves has the names rundnsmasq and runhttpd copy', async (t) => {
  const pod = podOf((await syncFor(spec)).children);
  const builder = containerOf(pod, 'ipxe-builder');
  const command = builder?.command ?? [];
  t.same(command.slice(0, 2), ['/bin/bash', '-c']);
  t.equal(command[2], IPXE_BUILD_SCRIPT);
  const { firmware } = runBuilder(envOf(builder));
  const files = readdirSync(firmware).sort();
  const arch = process.arch === 'arm64' ? 'arm64' : 'x86_64';
  t.same(files, [`snponly-${arch}.efi`, 'undionly.kpxe'].sort(), 'renamed for this architecture');
  t.ok(
    files.every((f) => FIRMWARE_NAMES.includes(f)),
    'only names copy_ipxe_firmware copies',
  );
  t.equal(readFileSync(join(firmware, `snponly-${arch}.efi`), 'utf8'), 'efi\n');
});

t.test('the firmware is built from a pinned iPXE release with ECDSA, with HTTPS for BIOS too', async (t) => {
  const builderEnv = envOf(containerOf(podOf((await syncFor(spec)).children), 'ipxe-builder'));
  // v1.21.1, buildipxe.sh's default, has RSA only: the certificate of an ECDSA CA could not be verified.
  t.equal(builderEnv['IPXE_RELEASE_BRANCH'], 'v2.0.0', 'the first release with ECDSA and ECDHE');
  t.same([builderEnv['IPXE_BUILD_FROM_CACHE'], builderEnv['IPXE_BUILD_FROM_REPO']], ['true', 'false'], 'buildipxe.sh builds the source the script cloned');
  t.equal(builderEnv['IPXE_SHARED_FIRMWARE_SOURCE'], '/data/ipxe-source');
  const { source, gitCalls } = runBuilder(builderEnv, 2);
  t.same(
    gitCalls,
    [
      `clone --depth 1 --branch v2.0.0 https://github.com/ipxe/ipxe.git ${source}`,
      `clone --depth 1 --branch v2.0.0 https://github.com/ipxe/ipxe.git ${source}`,
    ],
    'cloned again when the init container restarts',
  );
  t.equal(readFileSync(join(source, 'src/config/local/general.h'), 'utf8'), '#define DOWNLOAD_PROTO_HTTPS\n');
  const other = envOf(containerOf(podOf((await syncFor(spec, [], {}, { IPXE_RELEASE: 'v2.0.1' })).children), 'ipxe-builder'));
  t.equal(other['IPXE_RELEASE_BRANCH'], 'v2.0.1', "the hook server's IPXE_RELEASE replaces it");
});

t.test('the firmware trusts the CA that signs the certificate iPXE is served with', async (t) => {
  const now = new Date('2026-01-01T00:00:00Z');
  const signing = await generateRpcCA('metal3/ironic CA', now);
  const other = await generateRpcCA('metal3/ironic CA (next)', now);
  const caDir = mkdtempSync(join(tmpdir(), 'tls-ca-'));
  writeFileSync(join(caDir, 'tls.crt'), signing.certPem);
  writeFileSync(join(caDir, 'tls.key'), signing.keyPem);
  // During a rotation the bundle holds both CAs, the signing one first.
  writeFileSync(join(caDir, 'ca.crt'), `${signing.certPem.trim()}\n${other.certPem.trim()}\n`);
  const pod = podOf((await syncFor(spec)).children);
  const certs = mkdtempSync(join(tmpdir(), 'certs-'));
  const issuerEnv = { ...envOf(containerOf(pod, 'tls-certificate')), CA_DIR: caDir, CERT_DIR: certs, HOST_IP: '192.0.2.2', POD_IP: '192.0.2.2' };
  await issueFromEnvironment(issuerEnv, now, () => ({
    eth1: [{ address: '192.0.2.2', netmask: '255.255.255.0', family: 'IPv4', mac: '52:54:00:00:00:01', internal: false, cidr: '192.0.2.2/24' }],
  }));
  const builderEnv = envOf(containerOf(pod, 'ipxe-builder'));
  const trustFile = join(certs, (builderEnv['IPXE_CERT_FILE'] ?? '').replace('/certs/ipxe/', ''));
  // TRUST= fingerprints the first certificate of the file only (`openssl x509 -in`, iPXE Makefile.housekeeping).
  const first = new X509Certificate(readFileSync(trustFile));
  const leaf = new X509Certificate(readFileSync(join(certs, 'tls.crt')));
  t.ok(leaf.verify(first.publicKey), 'the first certificate of IPXE_CERT_FILE signed the served certificate');
  t.ok(first.ca, 'a CA: a renewed certificate stays trusted');
  t.equal(leaf.checkIP(builderEnv['IPXE_CHAIN_HOST'] ?? ''), '192.0.2.2', 'iPXE checks the chain host against the certificate');
});

t.test("a user's Secret: its CA when it has one, else the certificate itself", async (t) => {
  const ipxeSpec = { networking: network, tls: { certificateName: 'ironic-tls', ipxe: true } };
  const withCA = podOf((await syncFor(ipxeSpec, [TLS_SECRET])).children);
  t.equal(envOf(containerOf(withCA, 'ipxe-builder'))['IPXE_CERT_FILE'], '/certs/ipxe/ca.crt');
  const withoutCA = podOf((await syncFor(ipxeSpec, [secret('ironic-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem })])).children);
  t.equal(envOf(containerOf(withoutCA, 'ipxe-builder'))['IPXE_CERT_FILE'], '/certs/ipxe/tls.crt', 'a self-signed or public certificate: trusted as it is');
  t.match(mountsOf(containerOf(withoutCA, 'dnsmasq'))['/certs/ipxe'], { name: 'cert-ironic', readOnly: true });
});

t.test('the builder reaches GitHub through spec.proxy, and the image can be replaced', async (t) => {
  const pod = podOf(
    (
      await syncFor({
        ...spec,
        proxy: { httpsProxy: 'http://proxy.example.com:3128' },
        images: { ipxeBuilder: 'registry.example.com/ipxe-builder@sha256:0123' },
      })
    ).children,
  );
  const builder = containerOf(pod, 'ipxe-builder');
  t.equal(envOf(builder)['https_proxy'], 'http://proxy.example.com:3128', 'git reads https_proxy');
  t.equal(builder?.image, 'registry.example.com/ipxe-builder@sha256:0123');
  t.equal(containerOf(podOf((await syncFor(spec)).children), 'ipxe-builder')?.image, 'quay.io/metal3-io/ipxe-builder:latest');
});

t.test('without tls.ipxe nothing of it is rendered, and dnsmasq mounts /shared only', async (t) => {
  const pod = podOf((await syncFor({ networking: network, tls: { generateCertificate: true } })).children);
  t.equal(containerOf(pod, 'ipxe-builder'), undefined);
  t.same(containerOf(pod, 'dnsmasq')?.volumeMounts, [{ name: 'ironic-shared', mountPath: '/shared' }]);
  t.equal(mountsOf(containerOf(pod, 'httpd'))['/certs/ipxe'], undefined);
  t.equal(envOf(containerOf(pod, 'ironic'))['IPXE_TLS_PORT'], undefined);
  const refused = await syncFor({ networking: network, tls: { ipxe: true } });
  t.match(refused.status['conditions'], [{ reason: 'InvalidSpec', message: /spec\.tls\.ipxe: ipxe needs a certificate/ }]);
});

t.test('the builder sees the certificate it trusts and no private key', async (t) => {
  type Mount = { name: string; mountPath: string; subPath?: string; readOnly?: boolean };
  const cases: [string, Obj, Obj[]][] = [
    ['generated', spec, []],
    ['Secret with ca.crt', { networking: network, tls: { certificateName: 'ironic-tls', ipxe: true } }, [TLS_SECRET]],
    [
      'Secret without ca.crt',
      { networking: network, tls: { certificateName: 'ironic-tls', ipxe: true } },
      [secret('ironic-tls', { 'tls.crt': TEST_LEAF.certPem, 'tls.key': TEST_LEAF.keyPem })],
    ],
  ];
  for (const [name, ipxeSpec, related] of cases) {
    const pod = podOf((await syncFor(ipxeSpec, related)).children);
    const builder = containerOf(pod, 'ipxe-builder');
    const mounts: Mount[] = builder?.volumeMounts ?? [];
    // Every volume of the pod that holds a private key: the serving certificate's and the CA key of the generated one.
    const keyVolumes = new Set(['cert-ironic', 'tls-ca-key']);
    t.ok(
      pod.volumes.some((v) => v.name === 'cert-ironic'),
      `${name}: the pod has the serving certificate's volume`,
    );
    const exposed = mounts.filter((m) => keyVolumes.has(m.name));
    t.ok(
      exposed.every((m) => m.subPath === 'ca.crt' || m.subPath === 'tls.crt'),
      `${name}: key-holding volumes are mounted only as a single certificate file (${JSON.stringify(exposed)})`,
    );
    const certFile = envOf(builder)['IPXE_CERT_FILE'] ?? '';
    t.same(exposed, [{ name: 'cert-ironic', mountPath: certFile, subPath: certFile.replace('/certs/ipxe/', ''), readOnly: true }], `${name}: just ${certFile}`);
    t.notOk(
      mounts.some((m) => m.mountPath === '/certs/ipxe' || '/certs/ipxe/tls.key'.startsWith(`${m.mountPath}/`)),
      `${name}: no mount contains /certs/ipxe/tls.key`,
    );
    // The other containers still get the whole volume: tls-common.sh needs tls.key next to tls.crt.
    t.match(mountsOf(containerOf(pod, 'httpd'))['/certs/ipxe'], { name: 'cert-ironic', readOnly: true }, `${name}: httpd keeps /certs/ipxe`);
  }
});

t.test('iPXE TLS pods run on amd64 nodes: the builder cannot build the i386 BIOS firmware on arm64', async (t) => {
  const amd64Only = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
      },
    },
  };
  t.same(podOf((await syncFor(spec)).children).affinity, amd64Only);
  const placed = podOf(
    (
      await syncFor({
        ...spec,
        nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
        overrides: { tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }] },
      })
    ).children,
  );
  t.same(placed.affinity, amd64Only, 'added to the placement of the spec');
  t.same(placed.nodeSelector, { 'node-role.kubernetes.io/control-plane': '' }, 'nodeSelector kept');
  t.match(placed.tolerations, [{ key: 'node-role.kubernetes.io/control-plane' }], 'tolerations kept');
  t.same(podOf((await syncFor({ ...spec, nodeSelector: { 'kubernetes.io/arch': 'amd64' } })).children).affinity, amd64Only, 'an amd64 nodeSelector agrees');
  t.equal(
    podOf((await syncFor({ networking: network, tls: { generateCertificate: true } })).children).affinity,
    undefined,
    'without tls.ipxe any architecture',
  );
  const refused = await syncFor({ ...spec, nodeSelector: { 'kubernetes.io/arch': 'arm64' } });
  t.match(
    refused.status['conditions'],
    [{ reason: 'InvalidSpec', message: /spec\.nodeSelector\["kubernetes\.io\/arch"\]: tls\.ipxe runs on amd64 nodes only .*"arm64"/ }],
    'a pod that could never be scheduled is refused',
  );
  t.equal(refused.children.length, 0, 'and nothing is created');
});
