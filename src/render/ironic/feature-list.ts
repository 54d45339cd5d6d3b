/**
 * Every feature of an Ironic, in order. The order is that of the pod's containers, init containers (which
 * run in it), volumes, of what features add to other containers, and of the children: a new feature goes
 * where its containers belong, and adds its record here.
 */
import { API_CREDENTIALS } from './features/api-credentials.js';
import { API_SERVICE } from './features/api-service.js';
import { CERT_MANAGER } from './features/cert-manager.js';
import { CLIENT_HANDOFF } from './features/client-handoff.js';
import { DATABASE } from './features/database.js';
import { DNSMASQ } from './features/dnsmasq.js';
import { DISRUPTION_BUDGET } from './features/disruption-budget.js';
import { DOWNLOADER } from './features/downloader.js';
import { EXPORTER } from './features/exporter.js';
import { GENERATED_TLS } from './features/generated-tls.js';
import { HTTPD } from './features/httpd.js';
import { IMAGE_CACHE } from './features/image-cache.js';
import { IPXE_TLS } from './features/ipxe-tls.js';
import { IRONIC } from './features/ironic.js';
import { JSON_RPC } from './features/json-rpc.js';
import { KEEPALIVED } from './features/keepalived.js';
import { NETWORKING_SERVICE } from './features/networking-service.js';
import { RAMDISK_LOGS } from './features/ramdisk-logs.js';
import { USER_CERTIFICATES } from './features/user-certificates.js';
import type { IronicFeature } from './feature.js';

export const IRONIC_FEATURES: readonly IronicFeature[] = [
  API_CREDENTIALS,
  CLIENT_HANDOFF,
  USER_CERTIFICATES,
  DATABASE,
  IRONIC,
  HTTPD,
  RAMDISK_LOGS,
  DNSMASQ,
  // Init containers from here on run in this order: the certificates first, as the iPXE firmware trusts the CA.
  JSON_RPC,
  GENERATED_TLS,
  CERT_MANAGER,
  IPXE_TLS,
  DOWNLOADER,
  IMAGE_CACHE,
  KEEPALIVED,
  EXPORTER,
  NETWORKING_SERVICE,
  API_SERVICE,
  DISRUPTION_BUDGET,
];
