/**
 * How an Ironic conductor lives and stops: its heartbeats, its log settings, its database pool and the
 * shutdown the pod gives it. All of it reaches ironic.conf as oslo.config environment overrides
 * (`OS_<GROUP>__<OPTION>`), which win over ironic-image's template; the user's extraConfig comes later and
 * wins over these. The trade-offs are in the README, section Sizing.
 *
 * What Ironic does on SIGTERM (ironic/conductor/rpc_service.py, the image's Ironic): it stops its API, marks
 * itself offline, waits until the other conductors' hash rings have been rebuilt without it
 * (`[DEFAULT] hash_ring_reset_interval`; NOTE: only when more than one other conductor is online), stops its
 * JSON-RPC server (calls running at that moment can be cut: measured, not drained), then waits up to
 * `[conductor] graceful_shutdown_timeout`, counted from the signal, for the nodes it holds to be released.
 *
 * A heartbeat shares its conductor's database pool with the API: it waits for a connection behind the requests
 * queued before it, at most `[database] pool_timeout`, and after a failed one the next comes an interval later. So
 * a heartbeat is late by at most interval + stall + pool timeout, which the pool timeout is derived to keep under
 * the heartbeat timeout for a stall of DATABASE_STALL_SECONDS.
 */
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { ILifecycle } from 'kubernetes-models/v1/Lifecycle';
import { DATABASE_MAX_OVERFLOW, DATABASE_POOL_SIZE, DATABASE_STALL_SECONDS, HEARTBEAT_MARGIN_SECONDS, MAX_POOL_TIMEOUT } from '../../api/shared/constants.js';
import type { IronicModel } from '../../api/ironic/model.js';
import { env } from './facts.js';

/**
 * Seconds the containers serving clients keep serving after the pod is told to stop: Kubernetes removes
 * the pod from the Service endpoints while it sends the signal, and kube-proxy and Ingress controllers
 * learn of it a moment later; without the pause, the requests they still route are refused.
 */
export const PRE_STOP_SECONDS = 5;

/**
 * `[DEFAULT] hash_ring_reset_interval` with high availability (Ironic's is 15 s): how long a conductor may still
 * send calls to one that stopped (they are refused), how long a stopping conductor waits for the others' rings
 * (with three or more), and how much later than the heartbeat timeout a dead conductor's nodes are taken over.
 * A reset is one small query of the conductors, at most once per interval and process.
 */
export const HASH_RING_RESET_SECONDS = 5;

/** Seconds Ironic's API and JSON-RPC server take to stop (the API's 2 s, the JSON-RPC server's 5 s). */
const SERVERS_STOP_SECONDS = 7;

/**
 * Seconds the stop of a conductor may take beyond its shutdown timeout: the hash ring wait, the servers' stop,
 * with room to spare (the ring was 15 s before; the grace period kept). The parent process of the image's Ironic
 * (oslo.service) kills its conductor process after `[DEFAULT] graceful_shutdown_timeout`, so that one is the
 * shutdown timeout plus this.
 */
export const STOP_OVERHEAD_SECONDS = 25;

/** What the stop needs before the nodes' wait: the ring wait and the servers' stop, which the overhead must cover. */
export const STOP_STEPS = { ringWait: HASH_RING_RESET_SECONDS, serversStop: SERVERS_STOP_SECONDS } as const;

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

/** The hash ring of the conductors of an HA Ironic: rebuilt every HASH_RING_RESET_SECONDS. */
export const hashRingEnv = (model: Pick<IronicModel, 'highAvailability'>): IEnvVar[] =>
  model.highAvailability ? [env('OS_DEFAULT__HASH_RING_RESET_INTERVAL', String(HASH_RING_RESET_SECONDS))] : [];

/**
 * `[database] pool_timeout`: the longest a request (a heartbeat among them) waits for a connection of the pool.
 * Derived from the heartbeat settings: interval + DATABASE_STALL_SECONDS + this + HEARTBEAT_MARGIN_SECONDS fits in
 * the heartbeat timeout (5 s with the defaults 5 and 30), between 1 s and SQLAlchemy's 30 s.
 */
export const poolTimeout = (model: Pick<IronicModel, 'conductor'>): number => {
  const { heartbeatInterval, heartbeatTimeout } = model.conductor;
  return Math.min(MAX_POOL_TIMEOUT, Math.max(1, heartbeatTimeout - heartbeatInterval - DATABASE_STALL_SECONDS - HEARTBEAT_MARGIN_SECONDS));
};

/** The longest database stall a conductor's heartbeats outlast: what the timeout leaves after the interval and the pool's wait. */
export const stallOutlasted = (model: Pick<IronicModel, 'conductor'>): number =>
  model.conductor.heartbeatTimeout - model.conductor.heartbeatInterval - poolTimeout(model);

/** The log level and when the ramdisk's logs are kept (ironic-image's template says debug and always). */
export const loggingEnv = (model: Pick<IronicModel, 'logging'>): IEnvVar[] => [
  env('OS_DEFAULT__DEBUG', model.logging.debug ? 'true' : 'false'),
  env('OS_AGENT__DEPLOY_LOGS_COLLECT', model.logging.deployLogs),
];

/** The connection pool of a conductor on MariaDB (the database's budget counts on these), and its wait. */
export const databasePoolEnv = (model: Pick<IronicModel, 'conductor'>): IEnvVar[] => [
  env('OS_DATABASE__MAX_POOL_SIZE', String(DATABASE_POOL_SIZE)),
  env('OS_DATABASE__MAX_OVERFLOW', String(DATABASE_MAX_OVERFLOW)),
  env('OS_DATABASE__POOL_TIMEOUT', String(poolTimeout(model))),
];
