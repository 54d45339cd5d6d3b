/**
 * spec.tls.profile: the table of profile → httpd variables (the names ironic-image's vhost templates read),
 * the validation of the spec, and the cipher names checked with the real `openssl ciphers`.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { validateIronic } from '../../src/api/validate.js';
import { MOZILLA_PROFILES, apacheSSLProtocol } from '../../src/render/shared/tls-profiles.js';
import { containerOf, envOf, podOf, syncFor } from '../helpers/render.js';

const network = { ipAddress: '192.0.2.2', interface: 'eth1', dhcp: { networkCIDR: '192.0.2.0/24', rangeBegin: '192.0.2.10', rangeEnd: '192.0.2.100' } };

const INTERMEDIATE_12 =
  'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305';
const CURVES = 'X25519:prime256v1:secp384r1';

/** The httpd variables of the profile (only those it sets: the others keep ironic-image's defaults). */
const profileEnvOf = async (spec: Record<string, unknown>): Promise<Record<string, string>> => {
  const env = envOf(containerOf(podOf((await syncFor(spec)).children), 'httpd'));
  return Object.fromEntries(Object.entries(env).filter(([name]) => /SSL_PROTOCOL|_CIPHERS|CURVES|CIPHER_ORDER/.test(name)));
};

const TABLE: readonly { name: string; spec: Record<string, unknown>; env: Record<string, string> }[] = [
  { name: 'no profile: the image defaults, nothing rendered', spec: { tls: { generateCertificate: true } }, env: {} },
  { name: 'a profile without TLS: nothing to apply it to', spec: { tls: { profile: { type: 'Modern' } } }, env: {} },
  {
    name: 'Intermediate: API and virtual media',
    spec: { tls: { generateCertificate: true, profile: { type: 'Intermediate' } } },
    env: {
      IRONIC_SSL_PROTOCOL: '-ALL +TLSv1.2 +TLSv1.3',
      IRONIC_TLS_12_CIPHERS: INTERMEDIATE_12,
      IRONIC_TLS_CURVES: CURVES,
      IRONIC_VMEDIA_SSL_PROTOCOL: '-ALL +TLSv1.2 +TLSv1.3',
      IRONIC_VMEDIA_TLS_12_CIPHERS: INTERMEDIATE_12,
      IRONIC_VMEDIA_CURVES: CURVES,
    },
  },
  {
    name: 'Modern: TLS 1.3 only, no TLS 1.2 suites; iPXE too',
    spec: { networking: network, tls: { generateCertificate: true, ipxe: true, profile: { type: 'Modern' } } },
    env: {
      IRONIC_SSL_PROTOCOL: '-ALL +TLSv1.3',
      IRONIC_TLS_CURVES: CURVES,
      IRONIC_VMEDIA_SSL_PROTOCOL: '-ALL +TLSv1.3',
      IRONIC_VMEDIA_CURVES: CURVES,
      IPXE_SSL_PROTOCOL: '-ALL +TLSv1.3',
    },
  },
  {
    name: 'Old: down to TLS 1.0, the server orders; disableVirtualMediaTLS leaves the vmedia vhost out',
    spec: { tls: { generateCertificate: true, disableVirtualMediaTLS: true, profile: { type: 'Old' } } },
    env: {
      IRONIC_SSL_PROTOCOL: '-ALL +TLSv1 +TLSv1.1 +TLSv1.2 +TLSv1.3',
      IRONIC_TLS_12_CIPHERS: MOZILLA_PROFILES.Old.ciphers.join(':'),
      IRONIC_TLS_CURVES: CURVES,
      IRONIC_TLS_ENFORCE_SERVER_CIPHER_ORDER: 'true',
    },
  },
  {
    name: 'Custom: its own version, ciphers and curves',
    spec: {
      tls: {
        generateCertificate: true,
        disableVirtualMediaTLS: true,
        profile: { type: 'Custom', minTLSVersion: 'VersionTLS12', ciphers: ['ECDHE-RSA-AES256-GCM-SHA384'], curves: ['secp384r1'] },
      },
    },
    env: { IRONIC_SSL_PROTOCOL: '-ALL +TLSv1.2 +TLSv1.3', IRONIC_TLS_12_CIPHERS: 'ECDHE-RSA-AES256-GCM-SHA384', IRONIC_TLS_CURVES: 'secp384r1' },
  },
  {
    name: 'Custom without curves: OpenSSL defaults',
    spec: { tls: { generateCertificate: true, disableVirtualMediaTLS: true, profile: { type: 'Custom', minTLSVersion: 'VersionTLS13' } } },
    env: { IRONIC_SSL_PROTOCOL: '-ALL +TLSv1.3' },
  },
];

t.test('profile → httpd variables', async (t) => {
  for (const row of TABLE) t.same(await profileEnvOf(row.spec), row.env, row.name);
});

t.test('Apache SSLProtocol: the minimum and every newer version', async (t) => {
  t.equal(apacheSSLProtocol('VersionTLS11'), '-ALL +TLSv1.1 +TLSv1.2 +TLSv1.3');
  t.equal(apacheSSLProtocol('VersionTLS12'), '-ALL +TLSv1.2 +TLSv1.3', "ironic-image's default for the API");
});

t.test('validation of spec.tls.profile', async (t) => {
  const paths = (profile: unknown): string[] => validateIronic({ tls: { generateCertificate: true, profile } }).map((p) => p.path);
  t.same(paths({ type: 'Intermediate' }), []);
  t.same(paths({ type: 'Custom', minTLSVersion: 'VersionTLS13' }), [], 'TLS 1.3 only needs no TLS 1.2 ciphers');
  t.same(paths({ type: 'Custom', ciphers: ['AES128-GCM-SHA256'] }), []);
  t.same(paths({ type: 'Modern', ciphers: ['AES128-GCM-SHA256'] }), ['spec.tls.profile.ciphers'], 'a named profile takes no lists');
  t.same(paths({ type: 'Custom', minTLSVersion: 'VersionTLS12' }), ['spec.tls.profile.ciphers'], 'Custom below 1.3 needs ciphers');
  t.ok(paths({ type: 'Strict' }).length > 0, 'an unknown type');
  t.ok(paths({ type: 'Custom', ciphers: ['AES128-SHA:NULL-SHA'] }).length > 0, 'one name per item: no OpenSSL list syntax');
  t.ok(paths({ type: 'Custom', ciphers: ['AES128-SHA\nSSLEngine off'] }).length > 0, 'nothing that could add a line to the httpd config');
});

t.test('every cipher of the named profiles is a TLS 1.2 cipher of the real OpenSSL', async (t) => {
  for (const [name, profile] of Object.entries(MOZILLA_PROFILES)) {
    // -s: only the ciphers this OpenSSL supports; an unknown name is silently dropped, so compare the lists.
    // Old's are checked at security level 0 (TLS 1.0 ciphers such as DES-CBC3-SHA are below the default level).
    for (const cipher of profile.ciphers) {
      const known = execFileSync('openssl', ['ciphers', '-s', '-tls1_2', `${cipher}:@SECLEVEL=0`], { encoding: 'utf8' })
        .trim()
        .split(':');
      t.same(known, [cipher], `${name}: ${cipher}`);
    }
  }
});
