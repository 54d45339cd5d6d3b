/**
 * How an Ironic conductor lives and stops: its heartbeats, its log settings, its database pool and the
 * shutdown the pod gives it. All of it reaches ironic.conf as oslo.config environment overrides
 * (`OS_<GROUP>__<OPTION>`), which win over ironic-image's template; the user's extraConfig comes later and
 * wins over these. The trade-offs are in the README, section Sizing.
 *
 * What Ironic does on SIGTERM (ironic/conductor/rpc_service.py, the image's Ironic): it stops its API, marks
 * itself offline, waits until the other conductors' hash rings have been rebuilt without it
 * (`[DEFAULT] hash_ring_reset_interval`, 15 s; NOTE: only when more than one other conductor is online),
 * stops its JSON-RPC server (cheroot lets running requests finish for 5 s), then waits up to
 * `[conductor] graceful_shutdown_timeout`, counted from the signal, for the nodes it holds to be released.
 */
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ILifecycle } from 'kubernetes-models/v1/Lifecycle';
import { DATABASE_MAX_OVERFLOW, DATABASE_POOL_SIZE } from '../../api/shared/constants.js';
import type { IronicModel } from '../../api/model.js';
import { env } from './facts.js';

/**
 * Seconds the containers serving clients keep serving after the pod is told to stop: Kubernetes removes
 * the pod from the Service endpoints while it sends the signal, and kube-proxy and Ingress controllers
 * learn of it a moment later; without the pause, the requests they still route are refused.
 */
export const PRE_STOP_SECONDS = 5;

/**
 * Seconds the stop of a conductor may take beyond its shutdown timeout: the hash ring wait (15 s), the
 * JSON-RPC server's drain (5 s), the API's (2 s), with room to spare. The parent process of the image's
 * Ironic (oslo.service) kills its conductor process after `[DEFAULT] graceful_shutdown_timeout`, so that
 * one is the shutdown timeout plus this.
 */
export const STOP_OVERHEAD_SECONDS = 25;

/** Seconds between the kill of the parent process and Kubernetes' SIGKILL, for its own exit. */
const EXIT_MARGIN_SECONDS = 5;

/** The pod's terminationGracePeriodSeconds: the pause, the conductor's whole stop, and a margin. */
export const terminationGracePeriod = (model: Pick<IronicModel, 'conductor'>): number =>
  PRE_STOP_SECONDS + model.conductor.shutdownTimeout + STOP_OVERHEAD_SECONDS + EXIT_MARGIN_SECONDS;

/** The pause before the signal (the image has coreutils' sleep; an exec works on every Kubernetes version). */
export const preStopPause = (): ILifecycle => ({ preStop: { exec: { command: ['sleep', String(PRE_STOP_SECONDS)] } } });

/**
 * The conductor's heartbeats and shutdown. NOTE: `[conductor] graceful_shutdown_timeout` replaced
 * `[DEFAULT] graceful_shutdown_timeout` for the conductor (which it still reads when the former is not
 * registered); the latter is also oslo.service's bound on its child process, hence larger.
 */
export const conductorEnv = (model: Pick<IronicModel, 'conductor'>): IEnvVar[] => {
  const c = model.conductor;
  return [
    env('OS_CONDUCTOR__HEARTBEAT_INTERVAL', String(c.heartbeatInterval)),
    env('OS_CONDUCTOR__HEARTBEAT_TIMEOUT', String(c.heartbeatTimeout)),
    env('OS_CONDUCTOR__GRACEFUL_SHUTDOWN_TIMEOUT', String(c.shutdownTimeout)),
    env('OS_DEFAULT__GRACEFUL_SHUTDOWN_TIMEOUT', String(c.shutdownTimeout + STOP_OVERHEAD_SECONDS)),
  ];
};

/** The log level and when the ramdisk's logs are kept (ironic-image's template says debug and always). */
export const loggingEnv = (model: Pick<IronicModel, 'logging'>): IEnvVar[] => [
  env('OS_DEFAULT__DEBUG', model.logging.debug ? 'true' : 'false'),
  env('OS_AGENT__DEPLOY_LOGS_COLLECT', model.logging.deployLogs),
];

/** The connection pool of a conductor on MariaDB (the database's budget counts on these). */
export const databasePoolEnv = (): IEnvVar[] => [
  env('OS_DATABASE__MAX_POOL_SIZE', String(DATABASE_POOL_SIZE)),
  env('OS_DATABASE__MAX_OVERFLOW', String(DATABASE_MAX_OVERFLOW)),
];
