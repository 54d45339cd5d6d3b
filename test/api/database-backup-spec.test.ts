/**
 * spec.backup of an IronicDatabase: which schedules a CronJob accepts, the rules on destinations and engines,
 * and the model the renderer reads (retention defaulted, sizes canonical).
 */
import t from 'tap';
import { cronProblem, fiveFieldSchedule, nextRun } from '../../src/api/shared/cron.js';
import { validateIronicDatabase } from '../../src/api/ironic-database/validate.js';
import { parseIronicDatabase } from '../../src/api/ironic-database/parse.js';

t.test('schedules: what a CronJob accepts, and a reason for what it refuses', async (t) => {
  const accepted = ['30 2 * * *', '*/15 * * * *', '0 0-23/6 * * *', '0 3 * * mon-fri', '0 3 1,15 * *', '0 3 * JAN,jul ?', '@daily', '@hourly', ' 5 4 * * 0 '];
  for (const schedule of accepted) t.equal(cronProblem(schedule), undefined, `accepted: ${schedule}`);
  const refused: [string, RegExp][] = [
    ['61 * * * *', /minute field "61"/],
    ['0 24 * * *', /hour field/],
    ['0 0 0 * *', /day of month field/],
    ['0 0 * 13 *', /month field/],
    ['0 0 * * 7', /day of week field/],
    ['0 0 * * funday', /day of week field/],
    ['* * * *', /five fields.*has 4/],
    ['* * * * * *', /has 6/],
    ['@every 5m', /unknown descriptor/],
    ['TZ=Europe/Paris 0 3 * * *', /time zone/],
    ['5-2 * * * *', /minute field/],
    ['*/0 * * * *', /minute field/],
    ['1/2/3 * * * *', /minute field/],
  ];
  for (const [schedule, why] of refused) t.match(cronProblem(schedule), why, `refused: ${schedule}`);
});

const problemsOf = (spec: unknown): string[] => validateIronicDatabase(spec).map((p) => `${p.path}: ${p.message}`);

t.test('spec.backup rules: a valid schedule, one destination, and S3 refused with Builtin with what to do', async (t) => {
  t.same(problemsOf({ backup: { schedule: '@daily' } }), [], 'a schedule alone');
  t.same(
    problemsOf({ backup: { schedule: '0 * * * *', retention: { count: 3, maxAge: '36h' }, persistentVolumeClaim: { size: '5Gi', storageClassName: 'x' } } }),
    [],
  );
  t.match(problemsOf({ backup: { schedule: 'daily' } }), [
    /^spec\.backup\.schedule: schedule "daily" is not a valid CronJob schedule: a schedule has five fields/,
  ]);
  t.match(problemsOf({ backup: { schedule: '@daily', retention: { maxAge: '3w' } } }), [/^spec\.backup\.retention\.maxAge/]);
  t.match(problemsOf({ backup: { schedule: '@daily', retention: { count: 0 } } }), [/^spec\.backup\.retention\.count/]);
  t.match(problemsOf({ backup: {} }), [/^spec\.backup\.schedule/], 'the schedule is required');
  const s3 = { endpoint: 'minio:9000', bucket: 'b', credentialsSecretName: 's' };
  t.match(problemsOf({ backup: { schedule: '@daily', s3 } }), [/^spec\.backup\.s3: backup\.s3 cannot be used with engine Builtin: .*no S3 client/]);
  t.match(problemsOf({ backup: { schedule: '@daily', s3, persistentVolumeClaim: {} } }), [/^spec\.backup: backup has one destination/, /^spec\.backup\.s3/]);
  t.same(problemsOf({ engine: 'MariaDBOperator', backup: { schedule: '@daily', s3 } }), [], 'S3 with engine MariaDBOperator');
  t.same(problemsOf({ engine: 'MariaDBOperator', backup: { schedule: '@daily', retention: { maxAge: '14d' } } }), [], 'an age with MariaDBOperator');
  t.match(problemsOf({ engine: 'MariaDBOperator', backup: { schedule: '@daily', retention: { count: 3 } } }), [
    /^spec\.backup\.retention\.count: retention\.count cannot be used with engine MariaDBOperator: mariadb-operator's Backup prunes backups by age only .*older than 30d/,
  ]);
  t.match(problemsOf({ engine: 'MariaDBOperator', backup: { schedule: '@daily', s3: { ...s3, tls: false, caSecretName: 'ca' } } }), [
    /^spec\.backup\.s3\.caSecretName: s3\.caSecretName needs tls/,
  ]);
});

t.test('spec.restoreFrom rules: one source, S3 with MariaDBOperator only, and each engine reads its own files', async (t) => {
  const s3 = { endpoint: 'minio:9000', bucket: 'b', credentialsSecretName: 's' };
  const galera = (restoreFrom: unknown) => problemsOf({ engine: 'MariaDBOperator', restoreFrom });
  t.same(galera({ backup: 'latest', s3 }), [], 'from a bucket');
  t.same(galera({ backup: 'backup.2026-01-01T02:30:00Z.sql.gz', claimName: 'old-backups' }), [], 'a mariadb-operator file');
  t.same(problemsOf({ restoreFrom: { backup: 'ironic-20260101T023000Z.sql.gz' } }), [], 'a Builtin file with Builtin');
  t.match(galera({ backup: 'latest', s3, claimName: 'c' }), [/^spec\.restoreFrom: restoreFrom has one source: claimName or s3, not both/]);
  t.match(problemsOf({ restoreFrom: { backup: 'latest', s3 } }), [/^spec\.restoreFrom\.s3: restoreFrom\.s3 cannot be used with engine Builtin/]);
  t.match(galera({ backup: 'ironic-20260101T023000Z.sql.gz' }), [
    /^spec\.restoreFrom\.backup: restoreFrom\.backup ironic-20260101T023000Z\.sql\.gz is a file of a Builtin backup.*backup\.<its UTC time>\.sql\.gz/,
  ]);
  t.match(problemsOf({ restoreFrom: { backup: 'backup.2026-01-01T02:30:00Z.sql' } }), [
    /^spec\.restoreFrom\.backup: .* is a file of mariadb-operator's backups/,
  ]);
  t.match(galera({ backup: 'backup.2026-01-01.sql.gz' }), [/^spec\.restoreFrom\.backup/], 'a name that is neither');
});

t.test('the backup model: the newest 7 by default, ages in minutes, sizes canonical', async (t) => {
  const modelOf = (backup: unknown) => {
    const parsed = parseIronicDatabase({ backup });
    return parsed.ok ? parsed.model.backup : parsed.problems;
  };
  t.same(modelOf({ schedule: ' @daily ' }), {
    schedule: '@daily',
    keepCount: 7,
    beforeUpgrade: true,
    destination: { kind: 'PersistentVolumeClaim', size: '10Gi' },
  });
  t.same(modelOf({ schedule: '@daily', retention: { maxAge: '2d' }, persistentVolumeClaim: { size: '1024Mi', storageClassName: '' } }), {
    schedule: '@daily',
    maxAgeMinutes: 2880,
    beforeUpgrade: true,
    destination: { kind: 'PersistentVolumeClaim', size: '1Gi' },
  });
  t.same(modelOf({ schedule: '@daily', retention: { count: 2, maxAge: '5h' }, persistentVolumeClaim: { storageClassName: 'slow' }, beforeUpgrade: false }), {
    schedule: '@daily',
    keepCount: 2,
    maxAgeMinutes: 300,
    beforeUpgrade: false,
    destination: { kind: 'PersistentVolumeClaim', size: '10Gi', storageClassName: 'slow' },
  });
  const parsed = parseIronicDatabase({});
  t.equal(parsed.ok && parsed.model.backup, undefined, 'no backup unless asked');
});

t.test('the backup model of engine MariaDBOperator: by age only (30 days unless told), S3 with TLS unless told', async (t) => {
  const modelOf = (spec: Record<string, unknown>) => {
    const parsed = parseIronicDatabase({ engine: 'MariaDBOperator', ...spec });
    return parsed.ok ? { backup: parsed.model.backup, restore: parsed.model.restore } : parsed.problems;
  };
  const s3 = { endpoint: 'minio:9000', bucket: 'b', prefix: 'ironic/', credentialsSecretName: 's', caSecretName: 'ca' };
  t.same(modelOf({ backup: { schedule: '@daily' } }), {
    backup: { schedule: '@daily', maxAgeMinutes: 43200, beforeUpgrade: true, destination: { kind: 'PersistentVolumeClaim', size: '10Gi' } },
    restore: undefined,
  });
  t.same(
    modelOf({
      backup: { schedule: '@daily', retention: { maxAge: '36h' }, s3 },
      restoreFrom: { backup: 'latest', s3: { ...s3, tls: false, caSecretName: undefined } },
    }),
    {
      backup: {
        schedule: '@daily',
        maxAgeMinutes: 2160,
        beforeUpgrade: true,
        destination: { kind: 'S3', endpoint: 'minio:9000', bucket: 'b', prefix: 'ironic/', credentialsSecretName: 's', caSecretName: 'ca', tls: true },
      },
      restore: { backup: 'latest', s3: { kind: 'S3', endpoint: 'minio:9000', bucket: 'b', prefix: 'ironic/', credentialsSecretName: 's', tls: false } },
    },
  );
});

t.test('a descriptor as five fields for mariadb-operator, which refuses descriptors: the same runs', async (t) => {
  const times = ['2026-01-01T00:00:00Z', '2026-02-28T23:59:59Z', '2026-06-15T12:34:56Z', '2026-12-31T23:00:00Z', '2027-03-07T00:00:01Z'];
  for (const descriptor of ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']) {
    const fields = fiveFieldSchedule(descriptor);
    t.equal(fields.split(' ').length, 5, `${descriptor} is ${fields}`);
    t.equal(cronProblem(fields), undefined, `${fields} is a valid schedule`);
    for (const time of times) t.equal(nextRun(fields, time), nextRun(descriptor, time), `${descriptor} and ${fields} run next at the same time after ${time}`);
  }
  t.equal(fiveFieldSchedule(' 30 2 * * * '), '30 2 * * *', 'five fields are kept, trimmed');
  t.equal(fiveFieldSchedule(' @daily '), '0 0 * * *', 'a descriptor with spaces around it');
});
