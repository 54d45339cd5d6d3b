/**
 * Defaults the API server cannot apply: it defaults a nested field only when its parent object exists,
 * and a hook never writes the spec back. Every renderer works on the output of these functions.
 */
import type { IronicSpec, Networking } from './ironic.js';
import type { IronicDatabaseSpec } from './ironic-database.js';
import { DEFAULT_VERSION } from './version.js';

import { DEFAULT_DATABASE_SIZE, DEFAULT_EXPORTER_BIND_ADDRESS, DEFAULT_PORTS, DEFAULT_SENSOR_INTERVAL } from './constants.js';

export { DEFAULT_DATABASE_SIZE, DEFAULT_EXPORTER_BIND_ADDRESS, DEFAULT_PORTS, DEFAULT_SENSOR_INTERVAL };

/** Networking with every port set. */
export type DefaultedNetworking = Networking & Required<Pick<Networking, keyof typeof DEFAULT_PORTS | 'disableHostNetwork'>>;

/** An Ironic spec after withDefaults(): ports, version and exporter settings are always present. */
export type DefaultedIronicSpec = Omit<IronicSpec, 'networking' | 'version'> & {
  readonly networking: DefaultedNetworking;
  readonly version: string;
};

const positiveOr = (value: number | undefined, fallback: number): number =>
  value !== undefined && value > 0 ? value : fallback;

/**
 * Returns a copy of `spec` with the defaults applied: the five ports (a missing or zero port gets its
 * default), `disableHostNetwork`, `version`, the exporter bind address and interval, and the provider
 * network mode. Never mutates its input.
 */
export const withDefaults = (spec: IronicSpec): DefaultedIronicSpec => {
  const networking = spec.networking ?? {};
  const exporter = spec.prometheusExporter;
  const service = spec.networkingService;
  return {
    ...spec,
    version: spec.version !== undefined && spec.version !== '' ? spec.version : DEFAULT_VERSION,
    networking: {
      ...networking,
      apiPort: positiveOr(networking.apiPort, DEFAULT_PORTS.apiPort),
      imageServerPort: positiveOr(networking.imageServerPort, DEFAULT_PORTS.imageServerPort),
      imageServerTLSPort: positiveOr(networking.imageServerTLSPort, DEFAULT_PORTS.imageServerTLSPort),
      rpcPort: positiveOr(networking.rpcPort, DEFAULT_PORTS.rpcPort),
      prometheusExporterPort: positiveOr(networking.prometheusExporterPort, DEFAULT_PORTS.prometheusExporterPort),
      disableHostNetwork: networking.disableHostNetwork ?? false,
    },
    ...(exporter && {
      prometheusExporter: {
        ...exporter,
        bindAddress: exporter.bindAddress !== undefined && exporter.bindAddress !== '' ? exporter.bindAddress : DEFAULT_EXPORTER_BIND_ADDRESS,
        sensorCollectionInterval: positiveOr(exporter.sensorCollectionInterval, DEFAULT_SENSOR_INTERVAL),
      },
    }),
    ...(service && {
      networkingService: {
        ...service,
        enabled: service.enabled ?? false,
        ...(service.providerNetworks && {
          providerNetworks: service.providerNetworks.map((n) => ({ ...n, mode: n.mode ?? 'access' })),
        }),
      },
    }),
  };
};

/** An IronicDatabase spec after withDatabaseDefaults(). */
export type DefaultedIronicDatabaseSpec = Omit<IronicDatabaseSpec, 'storage'> & {
  readonly storage: { readonly size: string; readonly ephemeral: boolean; readonly whenDeleted: 'Retain' | 'Delete'; readonly storageClassName?: string };
};

/** Returns a copy of `spec` with the storage defaults applied (10Gi, persistent, retained on deletion). */
export const withDatabaseDefaults = (spec: IronicDatabaseSpec): DefaultedIronicDatabaseSpec => {
  const storage = spec.storage ?? {};
  return {
    ...spec,
    storage: {
      ...(storage.storageClassName !== undefined && storage.storageClassName !== '' && { storageClassName: storage.storageClassName }),
      size: storage.size !== undefined && storage.size !== '' ? storage.size : DEFAULT_DATABASE_SIZE,
      ephemeral: storage.ephemeral ?? false,
      whenDeleted: storage.whenDeleted ?? 'Retain',
    },
  };
};
