import t from 'tap';
import fc from 'fast-check';
import { ingressName } from '../../src/render/ironic/features/api-service.js';
import { cloudsName } from '../../src/render/ironic/features/client-handoff.js';
import { serviceMonitorName } from '../../src/render/ironic/features/exporter.js';
import {
  dnsLabel,
  ironicNames,
  knownDatabaseNames,
  knownIronicNames,
  knownImageCacheNames,
  knownLabelValues,
  labelValue,
  objectName,
  databaseNames,
  imageCacheNames,
  statefulSetName,
} from '../../src/render/names.js';

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Valid Kubernetes object names (DNS-1123 subdomains up to 253 characters). */
const objectNames = fc
  .array(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/), { minLength: 1, maxLength: 12 })
  .map((parts) =>
    parts
      .join('.')
      .slice(0, 253)
      .replace(/[.-]+$/, ''),
  )
  .filter((n) => n.length > 0 && SUBDOMAIN.test(n));

t.test('child names and label values stay within Kubernetes limits for any valid parent name', async (t) => {
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(objectNames, (name) => {
        const n = ironicNames(name);
        const d = databaseNames(name);
        return (
          DNS_LABEL.test(n.service) &&
          n.service.length <= 63 &&
          DNS_LABEL.test(d.service) &&
          d.service.length <= 63 &&
          n.workload.length <= 253 &&
          SUBDOMAIN.test(n.workload) &&
          n.upgradeJob('pre', '37.0', '38.0').length <= 63 &&
          [n.apiCredentials, cloudsName(n), n.switchConfig, n.switchCredentials, n.networking, ingressName(n), serviceMonitorName(n)].every(
            (o) => o.length <= 253 && SUBDOMAIN.test(o),
          ) &&
          DNS_LABEL.test(n.networkingService) &&
          n.networkingService.length <= 63 &&
          [n.htpasswd('f'.repeat(64)), n.rpcCA('0'.repeat(64))].every((o) => o.length <= 253 && SUBDOMAIN.test(o)) &&
          n.htpasswd('f'.repeat(64)).startsWith(n.htpasswdPrefix) &&
          n.rpcCA('0'.repeat(64)).startsWith(n.rpcCAPrefix) &&
          [d.statefulSet, d.credentials, d.config].every((o) => o.length <= 253 && SUBDOMAIN.test(o)) &&
          LABEL_VALUE.test(labelValue(name)) &&
          labelValue(name).length <= 63
        );
      }),
      { numRuns: 500 },
    ),
  );
});

t.test('different names never share a Service', async (t) => {
  t.not(dnsLabel('a.b'), dnsLabel('a-b'));
  t.equal(dnsLabel('ironic'), 'ironic', 'a valid name is kept as it is');
  t.match(dnsLabel('1ironic'), /^x-1ironic-[0-9a-f]{8}$/);
  t.equal(objectName('x'.repeat(300)).length, 253);
});

t.test('content-named Secrets of the longest names still fit, and keep their prefix', async (t) => {
  const name = 'a'.repeat(253);
  const n = ironicNames(name);
  t.ok(n.rpcCA('0123456789abcdef').length <= 253, 'the JSON-RPC CA Secret (254 characters before)');
  t.ok(n.rpcCA('0123456789abcdef').startsWith(n.rpcCAPrefix));
  t.ok(n.htpasswd('0123456789abcdef').startsWith(n.htpasswdPrefix), 'found again by its prefix');
  t.not(n.htpasswd('0123456789abcdef'), n.htpasswd('fedcba9876543210'), 'different content, different name');
  t.equal(ironicNames('ironic').rpcCA('0123456789abcdef'), 'ironic-rpc-ca-0123456789', 'short names unchanged');
  const feature = n.contentNamed('-sidecar');
  t.ok(feature.name('0123456789abcdef').length <= 253 && feature.name('0123456789abcdef').startsWith(feature.prefix), "a feature's own, too");
  t.equal(ironicNames('ironic').contentNamed('-keepalived').name('0123456789abcdef'), 'ironic-keepalived-0123456789');
});

t.test("a feature's own child named by the parent's name fits, and is the parent's name with the suffix when it can be", async (t) => {
  t.equal(ironicNames('ironic').featureObject('-audit-forwarder'), 'ironic-audit-forwarder');
  const long = ironicNames('a'.repeat(253)).featureObject('-audit-forwarder');
  t.ok(long.length <= 253 && SUBDOMAIN.test(long), long);
  t.not(long, ironicNames('a'.repeat(252)).featureObject('-audit-forwarder'), 'two parents, two names');
});

/** Valid IronicDatabase names: object names (DNS-1123 subdomains) of at most 43 characters, as the CRD allows. */
const databaseObjectNames = fc
  .array(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/), { minLength: 1, maxLength: 4 })
  .map((parts) =>
    parts
      .join('.')
      .slice(0, 43)
      .replace(/[.-]+$/, ''),
  )
  .filter((n) => n.length > 0 && SUBDOMAIN.test(n));

/** The Services mariadb-operator creates for a MariaDB (api/v1alpha1 mariadb_keys.go, v26.6.0). */
const mariadbServices = (mariadb: string): string[] => [mariadb, `${mariadb}-internal`, `${mariadb}-primary`, `${mariadb}-secondary`];

t.test(
  'engine MariaDBOperator: every Service mariadb-operator derives from the MariaDB name is a valid Service name, and the host is its primary',
  async (t) => {
    for (const name of ['db.v1', '1db', 'ironic-db', 'a.b.c.' + 'd'.repeat(37), '9'.repeat(43)]) {
      const d = databaseNames(name);
      t.ok(
        mariadbServices(d.mariadb).every((s) => DNS_LABEL.test(s) && s.length <= 63),
        `${name}: ${mariadbServices(d.mariadb).join(', ')}`,
      );
      t.ok(d.mariadb.length <= 52, `${name}: ${d.mariadb} leaves room for the pods' revision label`);
      t.equal(d.primaryService, `${d.mariadb}-primary`, `${name}: the status host is the Service mariadb-operator creates`);
    }
    t.equal(databaseNames('ironic-db').mariadb, 'ironic-db-database', 'a name that is a DNS label keeps its MariaDB name');
    t.not(databaseNames('db.v1').mariadb, databaseNames('db-v1').mariadb, 'a.b and a-b never share a MariaDB');
    t.doesNotThrow(() =>
      fc.assert(
        fc.property(databaseObjectNames, (name) => {
          const d = databaseNames(name);
          return (
            d.mariadb.length <= 52 &&
            d.primaryService === `${d.mariadb}-primary` &&
            mariadbServices(d.mariadb).every((s) => DNS_LABEL.test(s) && s.length <= 63)
          );
        }),
        { numRuns: 500 },
      ),
    );
  },
);

/** A pod hostname: a DNS-1123 label (it may start with a digit). */
const HOSTNAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

t.test('StatefulSet names give pods valid hostnames, and names that already do are kept', async (t) => {
  t.equal(databaseNames('ironic-db').statefulSet, 'ironic-db-database', 'unchanged for a label');
  t.equal(databaseNames('1db').statefulSet, '1db-database', 'a leading digit is a valid hostname: kept, so its volumes stay');
  t.equal(imageCacheNames('ipa').statefulSet, 'ipa-ipa-cache');
  t.match(databaseNames('db.v1').statefulSet, /^db-v1-database-[0-9a-f]{8}$/, 'a dotted name could never start a pod');
  t.not(statefulSetName('a.b', '-x'), statefulSetName('a-b', '-x'), 'a.b and a-b never share a StatefulSet');
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(databaseObjectNames, (name) =>
        [databaseNames(name).statefulSet, imageCacheNames(name.slice(0, 42).replace(/[.-]+$/, '')).statefulSet].every(
          (s) => s.length <= 52 && HOSTNAME.test(`${s}-0`),
        ),
      ),
      { numRuns: 500 },
    ),
  );
});

t.test('names and label values are worked out once per parent name, boundedly, and never depend on what was asked before', async (t) => {
  const database = databaseNames('db.v1');
  const cache = imageCacheNames('ipa.v1');
  const ironic = ironicNames('ironic.v1');
  const label = labelValue('-Ironic.v1_');
  t.equal(databaseNames('db.v1'), database, 'the same object for the same name');
  t.equal(ironicNames('ironic.v1'), ironic, 'the same Ironic names for the same name');
  t.ok(Object.isFrozen(ironic), 'shared, so frozen');
  t.ok(Object.isFrozen(database) && Object.isFrozen(cache), 'shared, so frozen');
  t.same(database, {
    statefulSet: database.statefulSet,
    service: dnsLabel('db.v1', '-database'),
    credentials: objectName('db.v1', '-database-credentials'),
    config: objectName('db.v1', '-database-config'),
    mariadb: dnsLabel('db.v1', '-database', 52),
    primaryService: `${dnsLabel('db.v1', '-database', 52)}-primary`,
    rootPassword: objectName('db.v1', '-database-root'),
    otherUser: database.otherUser,
    userPassword: database.userPassword,
    backupCronJob: 'db.v1-database-backup',
    backupClaim: 'db.v1-database-backups',
    restoreJob: 'db.v1-database-restore',
    mariadbBackup: `${dnsLabel('db.v1', '-database', 52)}-backup`,
    mariadbRestore: `${dnsLabel('db.v1', '-database', 52)}-restore`,
    mariadbDataRestore: `${dnsLabel('db.v1', '-database', 52)}-restore-backup`,
  });
  const longRestore = databaseNames('d'.repeat(43)).mariadbDataRestore;
  t.ok(longRestore.length <= 63, `the Restore's name is a label value for its Job's pods (${longRestore})`);
  t.equal(databaseNames('ironic-db').mariadbBackup, 'ironic-db-database-backup', "mariadb-operator's Backup: named as the Builtin CronJob");
  const long = databaseNames('d'.repeat(43)).mariadbBackup;
  t.ok(long.length <= 52 && long.endsWith('-backup'), `a CronJob name that fits (${long})`);
  t.equal(database.userPassword('db-v1-database', 'abcdef0123456789'), objectName('db-v1-database', '-password-abcdef0123'));
  t.equal(database.otherUser('bob'), `${database.mariadb}-81b637d8`, 'the MariaDB name and a hash of the user name');
  t.equal(database.statefulSet, statefulSetName('db.v1', '-database'));
  t.same(cache, {
    statefulSet: statefulSetName('ipa.v1', '-ipa-cache'),
    service: dnsLabel('ipa.v1', '-ipa-cache'),
    config: objectName('ipa.v1', '-ipa-cache-config'),
  });
  t.equal(label, 'Ironic.v1');
  for (let i = 0; i < 3000; i += 1) {
    databaseNames(`db-${i}`);
    imageCacheNames(`ipa-${i}`);
    ironicNames(`ironic-${i}`);
    labelValue(`value-${i}`);
  }
  t.ok(
    knownDatabaseNames.size() <= 1024 && knownImageCacheNames.size() <= 1024 && knownIronicNames.size() <= 1024 && knownLabelValues.size() <= 1024,
    'bounded',
  );
  t.same(databaseNames('db.v1'), database, 'worked out again: the same names');
  t.same(imageCacheNames('ipa.v1'), cache);
  t.equal(ironicNames('ironic.v1').workload, ironic.workload, 'an Ironic worked out again: the same names');
  t.equal(ironicNames('ironic.v1').htpasswd('0123456789abcdef'), ironic.htpasswd('0123456789abcdef'));
  t.equal(labelValue('-Ironic.v1_'), label);
});
