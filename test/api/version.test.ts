import t from 'tap';
import fc from 'fast-check';
import {
  compareVersions,
  DEFAULT_VERSION,
  formatVersion,
  imageTagFor,
  isAtLeast,
  parseVersion,
  SUPPORTED_VERSIONS,
  supportedVersionsText,
  type Version,
} from '../../src/api/shared/version.js';

const LATEST: Version = { kind: 'latest' };
const release = (major: number, minor: number): Version => ({ kind: 'release', major, minor });

const parsed = (text: string): Version => {
  const result = parseVersion(text);
  if (!result.ok) throw new Error(`${text} should parse: ${result.message}`);
  return result.version;
};

t.test('parseVersion accepts latest and MAJOR.MINOR', async (t) => {
  t.same(parseVersion('latest'), { ok: true, version: LATEST });
  t.same(parseVersion('38.0'), { ok: true, version: release(38, 0) });
  t.same(parseVersion('1.25'), { ok: true, version: release(1, 25) });
  t.same(parseVersion('038.0'), { ok: true, version: release(38, 0) }, 'leading zeros are numbers');
});

t.test('parseVersion refuses everything else with a message naming the part', async (t) => {
  const cases: readonly (readonly [string, string])[] = [
    ['', 'expected latest or MAJOR.MINOR'],
    ['38', 'expected latest or MAJOR.MINOR'],
    ['38.0.1', 'expected latest or MAJOR.MINOR'],
    ['Latest', 'expected latest or MAJOR.MINOR'],
    ['0.1', 'invalid major version "0"'],
    ['x.1', 'invalid major version "x"'],
    ['-1.0', 'invalid major version "-1"'],
    ['+38.0', 'invalid major version "+38"'],
    ['38.x', 'invalid minor version "x"'],
    ['38.', 'invalid minor version ""'],
    ['38.-1', 'invalid minor version "-1"'],
  ];
  for (const [text, words] of cases) {
    const result = parseVersion(text);
    t.equal(result.ok, false, `${JSON.stringify(text)} is refused`);
    if (!result.ok) t.match(result.message, words, `${JSON.stringify(text)}: ${words}`);
  }
});

t.test('formatVersion and parseVersion round-trip', async (t) => {
  t.equal(formatVersion(LATEST), 'latest');
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (major, minor) => {
        const version = release(major, minor);
        return compareVersions(parsed(formatVersion(version)), version) === 0;
      }),
    ),
  );
});

t.test('compareVersions orders releases numerically and latest last, on both sides', async (t) => {
  t.equal(compareVersions(LATEST, LATEST), 0);
  t.ok(compareVersions(LATEST, release(38, 0)) > 0, 'latest > 38.0');
  t.ok(compareVersions(release(38, 0), LATEST) < 0, '38.0 < latest (upstream gets this side wrong)');
  t.ok(compareVersions(release(999, 0), LATEST) < 0, 'even a far future release is older than latest');
  t.ok(compareVersions(release(37, 0), release(38, 0)) < 0);
  t.ok(compareVersions(release(38, 1), release(38, 0)) > 0);
  t.ok(compareVersions(release(9, 0), release(10, 0)) < 0, 'numeric, not textual');
  t.ok(compareVersions(release(38, 10), release(38, 9)) > 0, 'minor numeric too');
  t.equal(compareVersions(release(35, 0), release(35, 0)), 0);
});

t.test('compareVersions is antisymmetric and transitive', async (t) => {
  const version = fc.oneof(
    fc.constant(LATEST),
    fc.tuple(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 5 })).map(([a, b]) => release(a, b)),
  );
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(version, version, version, (a, b, c) => {
        const sign = (n: number) => Math.sign(n) + 0;
        const antisymmetric = sign(compareVersions(a, b)) === -sign(compareVersions(b, a)) + 0;
        const transitive = !(compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0) || compareVersions(a, c) <= 0;
        return antisymmetric && transitive;
      }),
    ),
  );
});

t.test('imageTagFor knows exactly the supported versions', async (t) => {
  t.equal(imageTagFor('latest'), 'latest');
  t.equal(imageTagFor('38.0'), 'release-38.0');
  t.equal(imageTagFor('37.0'), 'release-37.0');
  t.equal(imageTagFor('35.0'), 'release-35.0');
  for (const unsupported of ['36.0', '34.0', '38.1', '038.0', '', 'release-38.0']) {
    t.equal(imageTagFor(unsupported), undefined, `${JSON.stringify(unsupported)} has no tag`);
  }
  t.equal(supportedVersionsText(), 'latest, 38.0, 37.0, 35.0');
  t.same(
    SUPPORTED_VERSIONS.map((v) => v.version),
    ['latest', '38.0', '37.0', '35.0'],
  );
});

t.test('DEFAULT_VERSION is a pinned, supported release', async (t) => {
  t.not(DEFAULT_VERSION, 'latest');
  t.ok(imageTagFor(DEFAULT_VERSION), 'has an image tag');
  t.equal(parsed(DEFAULT_VERSION).kind, 'release');
});

t.test('isAtLeast', async (t) => {
  t.equal(isAtLeast('latest', 37, 0), true, 'latest always is');
  t.equal(isAtLeast('37.0', 37, 0), true, 'equal');
  t.equal(isAtLeast('38.0', 37, 0), true, 'newer');
  t.equal(isAtLeast('37.1', 37, 2), false, 'older minor');
  t.equal(isAtLeast('35.0', 37, 0), false, 'older');
  t.equal(isAtLeast('100.0', 37, 0), true, 'numeric');
  t.equal(isAtLeast('garbage', 1, 0), false, 'unparseable');
  t.equal(isAtLeast('', 1, 0), false, 'empty');
});
