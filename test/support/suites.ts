/**
 * The test files run in a few processes, not one each. Starting a test process (Node, tap and its plugins,
 * the modules a test imports) costs about 1.5 s of CPU, which for 119 files was more CPU than half of the
 * tests themselves. tap runs the files of test/suites/ (package.json "tap" "include"); each runs one suite
 * of this table: its test files one after another in one process, each file's tests finished before the
 * next file is imported. A file still runs on its own with `npx tap test/<dir>/<file>.test.ts`.
 *
 * A file belongs to the first suite that claims it, and the last suite claims every file no other one
 * does, so a new test file runs without an edit here. The suites are cut so that two tap jobs end at about
 * the same time: the files that run real programs (mariadbd, dnsmasq, keepalived, Apache, curl) mostly
 * wait on them, and are kept apart from the files that only compute.
 */
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { filesUnder } from './files.js';

export type Suite = {
  readonly name: string;
  /** Test files (paths under test/) and folders (a path ending in "/") it claims; none for the last suite. */
  readonly claims: readonly string[];
};

export const SUITES: readonly Suite[] = [
  { name: 'databases', claims: ['render/database-backup.test.ts', 'render/database-tls-profile.test.ts', 'render/database-credentials.test.ts'] },
  {
    name: 'programs',
    claims: [
      'render/dhcp-failover.test.ts',
      'render/dnsmasq-dns.test.ts',
      'render/image-cache-download.test.ts',
      'render/tls-profiles-httpd.test.ts',
      'render/proxy-ipv6.test.ts',
    ],
  },
  // The real control plane (etcd, kube-apiserver, Metacontroller, cert-manager, mariadb-operator): one per process.
  { name: 'control-plane', claims: ['control-plane/'] },
  { name: 'render', claims: ['render/'] },
  { name: 'emulator', claims: ['emulator/'] },
  { name: 'server', claims: ['server/'] },
  { name: 'deploy', claims: ['deploy/', 'crd/'] },
  { name: 'unit', claims: [] },
];

/** The folder of the suite files; its files are never a suite's test files. */
export const SUITES_FOLDER = 'suites/';

const TEST_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Every test file under test/ (outside test/suites/), as a path under test/, in order. */
export const testFiles = (): string[] =>
  filesUnder(TEST_ROOT)
    .map((file) => relative(TEST_ROOT, file).split(sep).join('/'))
    .filter((file) => file.endsWith('.test.ts') && !file.startsWith(SUITES_FOLDER))
    .sort();

/** Whether a claim takes a file: a folder claim (ending in "/") every file under it, a file claim that file. */
export const claimTakes = (claim: string, file: string): boolean => (claim.endsWith('/') ? file.startsWith(claim) : file === claim);

const claimedBy = (suite: Suite, file: string): boolean => suite.claims.some((claim) => claimTakes(claim, file));

/** The suite a test file runs in: the first that claims it, else the last. */
export const suiteOf = (file: string): Suite => {
  const last = SUITES[SUITES.length - 1];
  if (last === undefined) throw new Error('no test suites');
  return SUITES.find((suite) => claimedBy(suite, file)) ?? last;
};

/** The test files of a suite, in order. */
export const filesOf = (name: string): string[] => testFiles().filter((file) => suiteOf(file).name === name);

/**
 * Runs the test files of a suite in this process. Each file is imported inside a subtest named after it;
 * the tests it declares join tap's queue behind that subtest, so the next file's subtest starts once they
 * have ended. A last subtest prints how long each file took (start to start), to keep the suites even.
 */
export const runSuite = async (name: string): Promise<void> => {
  if (!SUITES.some((suite) => suite.name === name)) throw new Error(`no test suite is named ${name}`);
  const starts: [string, number][] = [];
  for (const file of filesOf(name)) {
    await t.test(file, async () => {
      starts.push([file, performance.now()]);
      await import(pathToFileURL(join(TEST_ROOT, file)).href);
    });
  }
  await t.test(`${name}: seconds per file`, async (t) => {
    const end = performance.now();
    const lines = starts.map(([file, start], i) => [file, ((starts[i + 1]?.[1] ?? end) - start) / 1000] as const).sort((a, b) => b[1] - a[1]);
    t.comment(lines.map(([file, seconds]) => `${seconds.toFixed(1).padStart(6)} ${file}`).join('\n'));
  });
};
