/**
 * spec.backup of an IronicDatabase: which schedules a CronJob accepts, the rules on destinations and engines,
 * and the model the renderer reads (retention defaulted, sizes canonical).
 */
import t from 'tap';
import { cronProblem } from '../../src/api/shared/cron.js';
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

t.test('spec.backup rules: a valid schedule, one destination, and S3 or Galera are refused with what to do', async (t) => {
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
  t.match(problemsOf({ engine: 'MariaDBOperator', backup: { schedule: '@daily' } }), [
    /^spec\.backup: backup is not supported yet with engine MariaDBOperator/,
  ]);
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
