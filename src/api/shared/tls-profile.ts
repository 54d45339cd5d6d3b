/**
 * spec.tls.profile: which TLS versions, cipher suites and key-exchange groups the servers of an Ironic accept.
 * The named profiles are Mozilla's server-side TLS configurations (the lists live in
 * src/render/shared/tls-profiles.ts); Custom names its own.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { problem, type Problem } from './problems.js';
import { OPENSSL_NAME_PATTERN } from './schema-messages.js';

export const TLS_PROFILE_TYPES = ['Old', 'Intermediate', 'Modern', 'Custom'] as const;
export type TLSProfileType = (typeof TLS_PROFILE_TYPES)[number];

/** The lowest TLS version, spelled as OpenShift's TLS security profiles spell it. */
export const TLS_VERSIONS = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;
export type TLSVersion = (typeof TLS_VERSIONS)[number];

/** OpenSSL names (OPENSSL_NAME_PATTERN: never a list separator, a space or a line in the httpd configuration). */
const names = (description: string) => Type.Array(Type.String({ pattern: OPENSSL_NAME_PATTERN, minLength: 1, maxLength: 64 }), { description, maxItems: 64 });

export const TLSProfile = Type.Object(
  {
    type: StringEnum(TLS_PROFILE_TYPES, {
      description:
        "`Intermediate` (TLS 1.2 and 1.3, Mozilla's recommended list), `Modern` (TLS 1.3 only), `Old` (down to TLS 1.0, for very old BMCs and clients; the image's OpenSSL may still refuse what its crypto policy forbids) or `Custom` (minTLSVersion, ciphers, curves).",
    }),
    minTLSVersion: Type.Optional(StringEnum(TLS_VERSIONS, { description: 'Custom only: the lowest TLS version accepted (the default is VersionTLS12).' })),
    ciphers: Type.Optional(
      names(
        'Custom only: the TLS 1.2 (and older) cipher suites, by OpenSSL name (for example ECDHE-RSA-AES128-GCM-SHA256), in order of preference. Required unless minTLSVersion is VersionTLS13. TLS 1.3 keeps its suites.',
      ),
    ),
    curves: Type.Optional(names("Custom only: the key-exchange groups, by OpenSSL name (for example X25519, prime256v1). Without it, OpenSSL's defaults.")),
  },
  {
    description:
      "TLS versions and cipher suites of the API, virtual media and iPXE servers (httpd), from Mozilla's server-side TLS guidelines. Without it the image's defaults apply (TLS 1.2 and 1.3 for the API and iPXE; virtual media accepts every version OpenSSL allows).",
    'x-kubernetes-validations': [
      {
        rule: "self.type == 'Custom' || (!has(self.minTLSVersion) && !has(self.ciphers) && !has(self.curves))",
        message: 'minTLSVersion, ciphers and curves are only for type Custom',
      },
      {
        rule: "self.type != 'Custom' || (has(self.minTLSVersion) && self.minTLSVersion == 'VersionTLS13') || (has(self.ciphers) && size(self.ciphers) > 0)",
        message: 'a Custom profile below TLS 1.3 needs ciphers',
      },
    ],
  },
);
export type TLSProfile = Static<typeof TLSProfile>;

/** The rules the schema's CEL states, for the hooks (which see objects the API server never validated). */
export const tlsProfileProblems = (profile: TLSProfile | undefined, path: string): Problem[] => {
  if (profile === undefined) return [];
  if (profile.type !== 'Custom') {
    const stray = (['minTLSVersion', 'ciphers', 'curves'] as const).filter((field) => profile[field] !== undefined);
    return stray.map((field) => problem(`${path}.${field}`, `${field} is only for type Custom: remove it or set type to Custom`));
  }
  const tls13Only = profile.minTLSVersion === 'VersionTLS13';
  return !tls13Only && (profile.ciphers ?? []).length === 0
    ? [problem(`${path}.ciphers`, 'a Custom profile below TLS 1.3 needs ciphers: list OpenSSL cipher names, or set minTLSVersion to VersionTLS13')]
    : [];
};
