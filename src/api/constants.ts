/**
 * Every default and fixed number of the API, in one place: the schemas (CRD defaults and descriptions),
 * validation and the renderers all read them from here.
 */

/** Default ports of an Ironic (a missing or zero port gets these). */
export const DEFAULT_PORTS = {
  apiPort: 6385,
  imageServerPort: 6180,
  imageServerTLSPort: 6183,
  rpcPort: 6189,
  prometheusExporterPort: 9608,
} as const;

/** Ports of the Ironic Service (fixed: clients reach the API on 80/443 and the image server on 8080/8443). */
export const SERVICE_PORTS = {
  api: 80,
  apiTLS: 443,
  imageServer: 8080,
  imageServerTLS: 8443,
} as const;

export const DEFAULT_EXPORTER_BIND_ADDRESS = '0.0.0.0';
export const DEFAULT_SENSOR_INTERVAL = 60;
export const DEFAULT_DATABASE_SIZE = '10Gi';

/** A CA reference field, the deprecated name-only field it replaces, and the kind that field implies. */
export type CAField = { readonly ref: 'bmcCA' | 'trustedCA'; readonly legacy: 'bmcCAName' | 'trustedCAName'; readonly legacyKind: 'Secret' | 'ConfigMap' };

/** The legacy CA field mapping: bmcCAName is a Secret, trustedCAName a ConfigMap. */
export const CA_FIELDS: readonly CAField[] = [
  { ref: 'bmcCA', legacy: 'bmcCAName', legacyKind: 'Secret' },
  { ref: 'trustedCA', legacy: 'trustedCAName', legacyKind: 'ConfigMap' },
];
