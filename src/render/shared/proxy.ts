/**
 * The proxy variables of any pod that downloads (the Ironic pod, its iPXE builder and upgrade Jobs, the image
 * cache's downloads): one rule for every kind.
 */
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ProxyModel } from '../../api/ironic/model.js';
import { listEntries } from '../../api/shared/fields.js';

/** The three variables, each written in upper and lower case. */
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'] as const;

/** Proxy settings of the hook server for one container, by variable. */
export type ProxyFallback = { readonly HTTP_PROXY?: string | undefined; readonly HTTPS_PROXY?: string | undefined; readonly NO_PROXY?: string | undefined };

/** What never goes through a proxy in any pod: loopback (probes curl it) and Services (`.svc`, with the cluster domain when there is one). */
export const baseNoProxy = (clusterDomain: string): string[] => [
  'localhost',
  '127.0.0.1',
  '::1',
  '.svc',
  ...(clusterDomain !== '' ? [`.svc.${clusterDomain}`] : []),
];

const optional = (name: string, value: string | undefined): IEnvVar[] => (value !== undefined && value.trim() !== '' ? [{ name, value: value.trim() }] : []);

/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY, each in upper and lower case (curl reads only `http_proxy` for http
 * URLs; Python's requests prefers the lower case). The spec's proxy wins field by field over `fallback`. With
 * a proxy, NO_PROXY also lists `automatic`.
 */
export const proxyVariables = (proxy: ProxyModel | undefined, automatic: readonly string[], fallback: ProxyFallback = {}): IEnvVar[] => {
  const http = proxy?.httpProxy ?? fallback.HTTP_PROXY;
  const https = proxy?.httpsProxy ?? fallback.HTTPS_PROXY;
  const given = proxy !== undefined && proxy.noProxy.length > 0 ? proxy.noProxy : listEntries(fallback.NO_PROXY);
  const noProxy = http !== undefined || https !== undefined ? [...new Set([...given, ...automatic])] : given;
  const values: Readonly<Record<(typeof PROXY_VARIABLES)[number], string | undefined>> = { HTTP_PROXY: http, HTTPS_PROXY: https, NO_PROXY: noProxy.join(',') };
  return PROXY_VARIABLES.flatMap((name) => [...optional(name, values[name]), ...optional(name.toLowerCase(), values[name])]);
};
