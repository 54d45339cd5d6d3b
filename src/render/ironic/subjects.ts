/**
 * The names and addresses a certificate of this Ironic covers, whoever issues it (the hook's CA in the pods,
 * or cert-manager): the Service DNS names, networking.ipAddress and externalIP, the Ingress host and the
 * hosts of the external URLs.
 */
import { canonicalIP, parseIP } from '../../api/shared/net.js';
import type { IronicRenderInput } from './input.js';

/** The host of a URL (IPv6 without brackets), or nothing for one that does not parse. */
const hostOf = (url: string | undefined): string | undefined => {
  if (url === undefined || url === '') return undefined;
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined;
  }
};

/** The DNS names and IP addresses every certificate of this Ironic covers (the pod adds its own addresses). */
export type CertificateSubjects = { readonly dnsNames: string[]; readonly ips: string[] };

/** The names a Service of this Ironic answers to in the cluster: short, with the namespace, `.svc`, and with the cluster domain when one is configured. */
export const serviceDNSNames = (input: IronicRenderInput, service: string): string[] => {
  const svc = `${service}.${input.namespace}.svc`;
  const domain = input.config.clusterDomain;
  return [service, `${service}.${input.namespace}`, svc, ...(domain !== '' ? [`${svc}.${domain}`] : [])];
};

/** The names of the networking service's Service, which Ironic calls over JSON-RPC (none without the service). */
export const networkingServiceDNSNames = (input: IronicRenderInput): string[] =>
  input.model.networkingService !== undefined ? serviceDNSNames(input, input.names.networkingService) : [];

export const certificateSubjects = (input: IronicRenderInput): CertificateSubjects => {
  const { networking: n } = input.model;
  const hosts = [
    ...serviceDNSNames(input, input.names.service),
    n.ingress?.host,
    hostOf(n.externalCallbackURL),
    hostOf(n.imageServerExternalURL),
    n.ipAddress,
    n.externalIP,
  ].filter((h): h is string => h !== undefined && h !== '');
  // Addresses as cert-manager and Go write them back (`FD00::2` is `fd00::2`), so that they compare equal;
  // one with a zone is never a SAN (validation refuses it with a certificate).
  const isAddress = (h: string): boolean => parseIP(h) !== undefined;
  const dnsNames = hosts.filter((h) => !isAddress(h)).map((h) => h.toLowerCase());
  const ips = hosts.map((h) => (isAddress(h) ? canonicalIP(h) : undefined)).filter((ip): ip is string => ip !== undefined);
  return { dnsNames: [...new Set(dnsNames)], ips: [...new Set(ips)] };
};
