/** Facts of the MariaDB pods the hooks run (the database itself, its backups and restores). */

/**
 * The uid and gid MariaDB runs as. NOTE: 27 is the mysql user of the metal3 mariadb-image; the official
 * image's own mysql user is 999, but its entrypoint runs under any uid (it steps down with gosu only when
 * started as root, and its /run/mysqld is world-writable). Keeping 27 means a data volume the metal3 image
 * wrote (owned by 27:27, directories 0700) works unchanged, with no recursive ownership change and on
 * volumes that ignore fsGroup.
 */
export const MYSQL_UID = 27;
/** Where the credentials Secret (`username`, `password`) is mounted. */
export const CREDENTIALS_DIR = '/auth/mariadb';
/** Where the certificate Secret (or only its CA) is mounted. */
export const TLS_DIR = '/certs/mariadb';
export const MARIADB_PORT = 3306;
