/**
 * The named TLS profiles, as data: Mozilla's server-side TLS recommendations, guidelines version 5.7
 * (https://wiki.mozilla.org/Security/Server_Side_TLS, https://ssl-config.mozilla.org/guidelines/5.7.json).
 * Cipher suites and groups are OpenSSL names; test/render/tls-profiles.test.ts checks every cipher with
 * `openssl ciphers`. TLS 1.3 suites are OpenSSL's defaults in all three, as Mozilla recommends, so they are
 * not listed.
 */
import type { TLSProfile, TLSVersion } from '../../api/shared/tls-profile.js';

/** What an httpd virtual host needs from a profile. */
export type ResolvedTLSProfile = {
  /** The lowest TLS version accepted (every newer one is accepted too). */
  readonly minTLSVersion: TLSVersion;
  /** TLS 1.2 (and older) cipher suites, in order of preference; empty for TLS 1.3 only. */
  readonly ciphers: readonly string[];
  /** Key-exchange groups; empty for OpenSSL's defaults. */
  readonly curves: readonly string[];
  /** Whether the server's order of ciphers wins over the client's. */
  readonly serverCipherOrder: boolean;
};

const MOZILLA_CURVES = ['X25519', 'prime256v1', 'secp384r1'];

const INTERMEDIATE_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'DHE-RSA-AES128-GCM-SHA256',
  'DHE-RSA-AES256-GCM-SHA384',
  'DHE-RSA-CHACHA20-POLY1305',
];

const OLD_CIPHERS = [
  ...INTERMEDIATE_CIPHERS,
  'ECDHE-ECDSA-AES128-SHA256',
  'ECDHE-RSA-AES128-SHA256',
  'ECDHE-ECDSA-AES128-SHA',
  'ECDHE-RSA-AES128-SHA',
  'ECDHE-ECDSA-AES256-SHA384',
  'ECDHE-RSA-AES256-SHA384',
  'ECDHE-ECDSA-AES256-SHA',
  'ECDHE-RSA-AES256-SHA',
  'DHE-RSA-AES128-SHA256',
  'DHE-RSA-AES256-SHA256',
  'AES128-GCM-SHA256',
  'AES256-GCM-SHA384',
  'AES128-SHA256',
  'AES256-SHA256',
  'AES128-SHA',
  'AES256-SHA',
  // NOTE: Mozilla's Old ends with DES-CBC3-SHA (3DES), left out here: Debian's OpenSSL 3 has no 3DES suite
  // at all and CentOS Stream 9's crypto policies (the ironic-image base) disable it, so the name would be
  // dropped by httpd anyway, and the test that checks every name with `openssl ciphers` could not pass.
];

export const MOZILLA_PROFILES: Readonly<Record<Exclude<TLSProfile['type'], 'Custom'>, ResolvedTLSProfile>> = {
  Old: { minTLSVersion: 'VersionTLS10', ciphers: OLD_CIPHERS, curves: MOZILLA_CURVES, serverCipherOrder: true },
  Intermediate: { minTLSVersion: 'VersionTLS12', ciphers: INTERMEDIATE_CIPHERS, curves: MOZILLA_CURVES, serverCipherOrder: false },
  Modern: { minTLSVersion: 'VersionTLS13', ciphers: [], curves: MOZILLA_CURVES, serverCipherOrder: false },
};

/** The profile's lists: a named one from the table, a Custom one from the spec. */
export const resolveTLSProfile = (profile: TLSProfile): ResolvedTLSProfile =>
  profile.type === 'Custom'
    ? { minTLSVersion: profile.minTLSVersion ?? 'VersionTLS12', ciphers: profile.ciphers ?? [], curves: profile.curves ?? [], serverCipherOrder: false }
    : MOZILLA_PROFILES[profile.type];

/** The versions from the lowest up, by Apache's names. */
const APACHE_VERSIONS: readonly (readonly [TLSVersion, string])[] = [
  ['VersionTLS10', 'TLSv1'],
  ['VersionTLS11', 'TLSv1.1'],
  ['VersionTLS12', 'TLSv1.2'],
  ['VersionTLS13', 'TLSv1.3'],
];

/** Apache's SSLProtocol for "this version and newer", in the form ironic-image's default takes (`-ALL +TLSv1.2 +TLSv1.3`). */
export const apacheSSLProtocol = (min: TLSVersion): string => {
  const from = APACHE_VERSIONS.findIndex(([version]) => version === min);
  return ['-ALL', ...APACHE_VERSIONS.slice(from).map(([, name]) => `+${name}`)].join(' ');
};
