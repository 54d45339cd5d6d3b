/** Everything an IronicImageCache renderer may read. */
import type { IronicImageCacheModel } from '../../api/ironic-image-cache/model.js';
import type { RenderConfig } from '../config.js';

/** The serving certificate: its Secret and a hash of its content (a renewal rolls the pod). */
export type CacheTLS = { readonly secretName: string; readonly hash: string };

export type CacheRenderInput = {
  readonly name: string;
  readonly namespace: string;
  readonly model: IronicImageCacheModel;
  readonly tls?: CacheTLS;
  /**
   * The claim templates of the observed StatefulSet. They are immutable, so once the StatefulSet exists
   * they are kept as they are.
   */
  readonly observedClaimTemplates?: readonly unknown[];
  /**
   * The podManagementPolicy of the observed StatefulSet (immutable), kept as it is; a new StatefulSet gets
   * Parallel.
   */
  readonly observedPodManagementPolicy?: 'Parallel' | 'OrderedReady';
  readonly config: RenderConfig;
};

/** The port httpd listens on (unprivileged) and the port of the Service, by scheme. */
export const CACHE_PORTS = {
  http: { container: 8080, service: 80 },
  https: { container: 8443, service: 443 },
} as const;

export const schemeOf = (input: Pick<CacheRenderInput, 'tls'>): 'http' | 'https' => (input.tls !== undefined ? 'https' : 'http');
