/**
 * Ironic versions: parsing, ordering and the supported list with the image tag of each.
 * Mirrors upstream api/v1alpha1/version.go, without its quirks (see compareVersions).
 */

/** A parsed version: `latest` or MAJOR.MINOR. */
export type Version = { readonly kind: 'latest' } | { readonly kind: 'release'; readonly major: number; readonly minor: number };

/** Supported versions, newest first, with the ironic-image tag of each. */
export const SUPPORTED_VERSIONS: readonly { readonly version: string; readonly tag: string }[] = [
  { version: 'latest', tag: 'latest' },
  { version: '38.0', tag: 'release-38.0' },
  { version: '37.0', tag: 'release-37.0' },
  { version: '35.0', tag: 'release-35.0' },
];

/**
 * The version used when spec.version is empty. NOTE: a pinned release, not `latest`, so that an
 * Ironic without a version is not upgraded by an image push; it moves only when this operator is upgraded.
 */
export const DEFAULT_VERSION = '38.0';

/** Registry and repository of the Ironic image. */
export const IRONIC_IMAGE_REPOSITORY = 'quay.io/metal3-io/ironic';

export type ParseResult = { readonly ok: true; readonly version: Version } | { readonly ok: false; readonly message: string };

const INTEGER = /^[0-9]+$/;

/** Parses `latest` or `MAJOR.MINOR` (major ≥ 1). Never throws. */
export const parseVersion = (text: string): ParseResult => {
  if (text === 'latest') return { ok: true, version: { kind: 'latest' } };
  const parts = text.split('.');
  if (parts.length !== 2) return { ok: false, message: `invalid version "${text}": expected latest or MAJOR.MINOR, for example 38.0` };
  const [majorText = '', minorText = ''] = parts;
  if (!INTEGER.test(majorText) || Number(majorText) < 1) {
    return { ok: false, message: `invalid major version "${majorText}" in "${text}": expected a positive integer` };
  }
  if (!INTEGER.test(minorText)) {
    return { ok: false, message: `invalid minor version "${minorText}" in "${text}": expected an integer` };
  }
  return { ok: true, version: { kind: 'release', major: Number(majorText), minor: Number(minorText) } };
};

/** The canonical text of a version. */
export const formatVersion = (version: Version): string => (version.kind === 'latest' ? 'latest' : `${version.major}.${version.minor}`);

/**
 * Orders two versions: negative when a < b. `latest` is newer than every release on either side
 * (upstream compares `N` with 0 when only the argument is latest; we do not copy that).
 */
export const compareVersions = (a: Version, b: Version): number => {
  if (a.kind === 'latest' || b.kind === 'latest') {
    return (a.kind === 'latest' ? 1 : 0) - (b.kind === 'latest' ? 1 : 0);
  }
  return a.major === b.major ? a.minor - b.minor : a.major - b.major;
};

/** The image tag of a supported version, or undefined. */
export const imageTagFor = (version: string): string | undefined => SUPPORTED_VERSIONS.find((v) => v.version === version)?.tag;

/** The supported versions as a sentence fragment, for messages. */
export const supportedVersionsText = (): string => SUPPORTED_VERSIONS.map((v) => v.version).join(', ');

/** True when `version` parses and is at least MAJOR.MINOR (latest always is). */
export const isAtLeast = (version: string, major: number, minor: number): boolean => {
  const parsed = parseVersion(version);
  return parsed.ok && compareVersions(parsed.version, { kind: 'release', major, minor }) >= 0;
};
