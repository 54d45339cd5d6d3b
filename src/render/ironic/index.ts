/**
 * All children of an Ironic, in a fixed order. Pure: same input, same output.
 */
import { toChild, type KubeChild } from '../child.js';
import type { IronicRenderInput } from './input.js';
import { renderApiCredentialsSecret, renderHtpasswdSecret } from './secrets.js';
import { renderCloudsSecret } from './handoff.js';
import { renderIronicIngress, renderIronicService } from './service.js';
import { renderIronicWorkload } from './workload.js';
import { renderRpcCASecret } from './ha.js';
import { renderCABundleConfigMap, renderTLSCASecret } from './generated-tls.js';
import { renderCertificate } from './cert-manager.js';
import { renderKeepalivedSecret } from './keepalived.js';
import { renderServiceMonitor } from './service-monitor.js';
import { renderNetworkingDeployment, renderNetworkingService, renderSwitchSecrets } from './networking-service.js';

export const renderIronicChildren = (input: IronicRenderInput): KubeChild[] =>
  [
    renderApiCredentialsSecret(input),
    renderHtpasswdSecret(input),
    renderCloudsSecret(input),
    renderRpcCASecret(input),
    renderTLSCASecret(input),
    renderCABundleConfigMap(input),
    renderCertificate(input),
    renderKeepalivedSecret(input),
    renderServiceMonitor(input),
    ...renderSwitchSecrets(input),
    renderNetworkingDeployment(input),
    renderNetworkingService(input),
    renderIronicService(input),
    renderIronicIngress(input),
    renderIronicWorkload(input),
  ]
    .filter((c) => c !== undefined)
    .map(toChild);
