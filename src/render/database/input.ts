/** Everything an IronicDatabase renderer may read. */
import type { DefaultedIronicDatabaseSpec } from '../../api/defaults.js';
import type { RenderConfig } from '../ironic/input.js';

export type DatabaseCredentials = {
  readonly secretName: string;
  readonly username: string;
  readonly password: string;
  readonly generated: boolean;
};

export type DatabaseTLS = { readonly secretName: string; readonly caKey: 'ca.crt' | 'tls.crt'; readonly hash: string };

export type DatabaseRenderInput = {
  readonly name: string;
  readonly namespace: string;
  readonly spec: DefaultedIronicDatabaseSpec;
  readonly credentials: DatabaseCredentials;
  readonly tls?: DatabaseTLS;
  readonly config: RenderConfig;
};

/** The database (schema) Ironic uses inside MariaDB. */
export const DATABASE_SCHEMA = 'ironic';
export const MARIADB_PORT = 3306;
