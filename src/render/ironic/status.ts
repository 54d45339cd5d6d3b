/**
 * The status of an Ironic: one Ready condition, the version fields and the credentials Secret.
 */
import type { ClientAccess, IronicStatus } from '../../api/ironic/schema.js';
import { previousUpgradeBackup, type UpgradeBackupStatus } from './upgrade.js';
import { pathOf } from '../observed.js';
import { readyCondition, REFUSAL_REASONS, type Readiness } from '../status.js';

export const IRONIC_REASONS = {
  available: 'DeploymentAvailable',
  inProgress: 'DeploymentInProgress',
  failed: 'DeploymentFailed',
  invalidSpec: 'InvalidSpec',
  missingReference: 'MissingReference',
  invalidReference: 'InvalidReference',
  conflict: 'ResourceConflict',
  deleting: REFUSAL_REASONS.deleting,
} as const;

/** How a sync ended, before it becomes a status. */
export type IronicOutcome =
  | { readonly kind: 'rendered'; readonly readiness: Readiness }
  | {
      readonly kind: 'invalidSpec' | 'missingReference' | 'invalidReference' | 'waiting' | 'refused' | 'conflict' | 'deleting';
      readonly message: string;
    };

const reasonOf = (outcome: IronicOutcome): { status: 'True' | 'False'; reason: string; message: string } => {
  switch (outcome.kind) {
    case 'rendered':
      if (outcome.readiness.state === 'ready')
        return { status: 'True', reason: IRONIC_REASONS.available, message: `Ironic is available: ${outcome.readiness.message}` };
      if (outcome.readiness.state === 'failed') return { status: 'False', reason: IRONIC_REASONS.failed, message: outcome.readiness.message };
      return { status: 'False', reason: IRONIC_REASONS.inProgress, message: outcome.readiness.message };
    case 'invalidSpec':
      return { status: 'False', reason: IRONIC_REASONS.invalidSpec, message: outcome.message };
    case 'missingReference':
      return { status: 'False', reason: IRONIC_REASONS.missingReference, message: outcome.message };
    case 'invalidReference':
      return { status: 'False', reason: IRONIC_REASONS.invalidReference, message: outcome.message };
    case 'refused':
      return { status: 'False', reason: IRONIC_REASONS.failed, message: outcome.message };
    case 'conflict':
      return { status: 'False', reason: IRONIC_REASONS.conflict, message: outcome.message };
    case 'waiting':
      return { status: 'False', reason: IRONIC_REASONS.inProgress, message: outcome.message };
    case 'deleting':
      return { status: 'False', reason: IRONIC_REASONS.deleting, message: outcome.message };
  }
};

/** The access block of a previous status, when it has the required fields (a foreign writer may have broken it). */
const previousAccess = (status: unknown): ClientAccess | undefined => {
  const access = pathOf(status, 'access');
  const text = (key: string): string | undefined => {
    const value = pathOf(access, key);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const apiURL = text('apiURL');
  const credentialsName = text('credentialsName');
  const cloudsSecretName = text('cloudsSecretName');
  if (apiURL === undefined || credentialsName === undefined || cloudsSecretName === undefined) return undefined;
  const external = text('externalAPIURL');
  const images = text('imageServerURL');
  const ca = pathOf(access, 'caCertificate');
  const caKind = pathOf(ca, 'kind');
  const caName = pathOf(ca, 'name');
  const caKey = pathOf(ca, 'key');
  const kind = caKind === 'Secret' ? 'Secret' : caKind === 'ConfigMap' ? 'ConfigMap' : undefined;
  const caCertificate: ClientAccess['caCertificate'] =
    kind !== undefined && typeof caName === 'string' && typeof caKey === 'string' ? { kind, name: caName, key: caKey } : undefined;
  return {
    apiURL,
    ...(external && { externalAPIURL: external }),
    ...(images && { imageServerURL: images }),
    credentialsName,
    ...(caCertificate && { caCertificate }),
    cloudsSecretName,
  };
};

const stringAt = (status: unknown, key: string): string | undefined => {
  const value = pathOf(status, key);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The whole status. Invariants (upstream's functional tests): requestedVersion is set before
 * installedVersion; installedVersion changes only together with Ready=True; after an upgrade,
 * Ready=True means installedVersion == requestedVersion. An invalid or refused spec leaves both as they were.
 */
export const computeIronicStatus = (params: {
  readonly outcome: IronicOutcome;
  readonly targetVersion: string | undefined;
  readonly previousStatus: unknown;
  readonly generation: number | undefined;
  readonly credentialsName: string | undefined;
  /** How clients reach the Ironic, when rendered; otherwise the previous status's is kept. */
  readonly access?: ClientAccess;
  /** The backup before the current upgrade, when one is due; otherwise the previous status's is kept. */
  readonly upgradeBackup?: UpgradeBackupStatus;
  readonly now: string;
}): IronicStatus => {
  const { outcome, previousStatus } = params;
  const condition = readyCondition({ ...reasonOf(outcome), generation: params.generation, previousStatus, now: params.now });
  const keepsVersions = outcome.kind === 'invalidSpec' || outcome.kind === 'refused';
  const requested = keepsVersions ? stringAt(previousStatus, 'requestedVersion') : params.targetVersion;
  const isReady = outcome.kind === 'rendered' && outcome.readiness.state === 'ready';
  const installed = isReady ? params.targetVersion : stringAt(previousStatus, 'installedVersion');
  const credentials = params.credentialsName ?? stringAt(previousStatus, 'apiCredentialsName');
  const access = params.access ?? previousAccess(previousStatus);
  const upgradeBackup = params.upgradeBackup ?? previousUpgradeBackup(previousStatus);
  return {
    conditions: [condition],
    ...(requested !== undefined && { requestedVersion: requested }),
    ...(installed !== undefined && { installedVersion: installed }),
    ...(credentials !== undefined && { apiCredentialsName: credentials }),
    ...(params.generation !== undefined && { observedGeneration: params.generation }),
    ...(access !== undefined && { access }),
    ...(upgradeBackup !== undefined && { upgradeBackup }),
  };
};
