/**
 * All children of an Ironic, in a fixed order. Pure: same input, same output.
 */
import type { KubeChild } from '../child.js';
import { compact } from '../meta.js';
import type { IronicRenderInput } from './input.js';
import { renderApiCredentialsSecret, renderHtpasswdSecret } from './secrets.js';
import { renderIronicIngress, renderIronicService } from './service.js';
import { renderIronicWorkload } from './workload.js';
import { renderRpcCASecret } from './ha.js';
import { renderServiceMonitor } from './service-monitor.js';

export const renderIronicChildren = (input: IronicRenderInput): KubeChild[] =>
  [
    renderApiCredentialsSecret(input),
    renderHtpasswdSecret(input),
    renderRpcCASecret(input),
    renderIronicWorkload(input),
    renderIronicService(input),
    renderIronicIngress(input),
    renderServiceMonitor(input),
  ]
    .filter((c) => c !== undefined)
    .map((c) => compact(c) as KubeChild);
