/**
 * The test suites (test/support/suites.ts) run every test file exactly once: tap runs only test/suites/, so a
 * file no suite ran would never run at all.
 */
import { readdirSync } from 'node:fs';
import t from 'tap';
import { SUITES, SUITES_FOLDER, claimTakes, filesOf, suiteOf, testFiles } from '../support/suites.js';

t.test('every test file runs in exactly one suite, and a new file runs in the last one', async (t) => {
  const files = testFiles();
  t.ok(files.length > 100, `test files found: ${String(files.length)}`);
  t.notOk(
    files.some((file) => file.startsWith(SUITES_FOLDER)),
    'the suite files are not test files of a suite',
  );
  const ran = SUITES.flatMap((suite) => filesOf(suite.name));
  t.same([...ran].sort(), files, 'the suites together run every file once');
  t.equal(suiteOf('some-new-folder/new.test.ts').name, SUITES.at(-1)?.name);
  t.equal(suiteOf('render/golden.test.ts').name, 'render', 'a folder claim');
  t.equal(suiteOf('render/dhcp-failover.test.ts').name, 'programs', 'a file claim comes before its folder');
  t.ok(claimTakes('render/', 'render/sub/x.test.ts'), 'a folder claim takes its subfolders');
  t.notOk(claimTakes('render/golden.test.ts', 'render/golden.test.ts.bak'), 'a file claim takes that file only');
  t.notOk(claimTakes('render/', 'renderer/x.test.ts'), 'a folder claim is a whole folder name');
});

t.test('each claim names a file or folder that exists, and each suite runs something', async (t) => {
  const files = testFiles();
  for (const suite of SUITES) {
    t.ok(filesOf(suite.name).length > 0, `${suite.name} runs files`);
    for (const claim of suite.claims) {
      t.ok(
        files.some((file) => claimTakes(claim, file)),
        `${suite.name}: ${claim} exists`,
      );
    }
  }
});

t.test('test/suites/ holds one file per suite, and nothing else', async (t) => {
  const present = readdirSync(new URL(`../${SUITES_FOLDER}`, import.meta.url)).sort();
  t.same(present, SUITES.map((suite) => `${suite.name}.test.ts`).sort());
});
