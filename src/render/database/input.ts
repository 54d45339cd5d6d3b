/** Everything an IronicDatabase renderer may read. */
import type { IronicDatabaseModel } from '../../api/ironic-database/model.js';
import type { RenderConfig } from '../config.js';

export type DatabaseCredentials = {
  readonly secretName: string;
  readonly username: string;
  readonly password: string;
  readonly generated: boolean;
};

export type DatabaseTLS = {
  readonly secretName: string;
  readonly caKey: 'ca.crt' | 'tls.crt';
  readonly hash: string;
  /** The DNS names the certificate is for: mariadb-operator checks the host names it connects to against them. */
  readonly dnsNames: readonly string[];
};

export type DatabaseRenderInput = {
  readonly name: string;
  readonly namespace: string;
  readonly model: IronicDatabaseModel;
  readonly credentials: DatabaseCredentials;
  /**
   * A keyed hash of the user name and password (keyed with the parent's uid, so the annotation that carries it
   * lets no one test guesses of the password): the Builtin pod restarts when it changes, and sets them as it starts.
   */
  readonly credentialsVersion: string;
  readonly tls?: DatabaseTLS;
  /**
   * The claim templates of the observed StatefulSet. They are immutable, so once the StatefulSet exists
   * they are kept as they are (a size change needs a manual expansion of the claim, reported in status).
   */
  readonly observedClaimTemplates?: readonly unknown[];
  readonly config: RenderConfig;
};

/** The database (schema) Ironic uses inside MariaDB. */
export const DATABASE_SCHEMA = 'ironic';
export { MARIADB_PORT } from '../shared/mariadb.js';
