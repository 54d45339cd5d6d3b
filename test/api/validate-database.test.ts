import t from 'tap';
import fc from 'fast-check';
import { validateIronic, validateIronicDatabase, type Problem } from '../../src/api/validate.js';
import { compareQuantities, isPositive, parseQuantity, type Quantity } from '../../src/api/shared/quantity.js';

type Accepted = { readonly name: string; readonly spec: unknown; readonly old?: unknown };
type Refused = Accepted & { readonly path: string; readonly words: readonly string[]; readonly paths?: readonly string[] };
type RuleTable = { readonly rule: string; readonly accepted: readonly Accepted[]; readonly refused: readonly Refused[] };

const resources = (requests: Record<string, unknown>, limits: Record<string, unknown>) => ({ resources: { requests, limits } });

const TABLES: readonly RuleTable[] = [
  {
    rule: 'schema: the shape is checked first, with spec paths',
    accepted: [
      { name: 'empty spec', spec: {} },
      { name: 'empty priorityClassName (the default priority)', spec: { priorityClassName: '' } },
      {
        name: 'everything set, Galera',
        spec: {
          engine: 'MariaDBOperator',
          replicas: 5,
          priorityClassName: 'system-cluster-critical',
          credentialsName: 'c',
          image: 'docker.io/library/mariadb:11.8',
          tlsCertificateName: 't',
          storage: { size: '20Gi' },
        },
      },
      {
        name: 'everything set',
        spec: {
          engine: 'Builtin',
          priorityClassName: 'ironic.critical-1',
          credentialsName: 'c',
          image: 'registry.example.com/mirror/mariadb:11.8',
          tlsCertificateName: 't',
          storage: { size: '20Gi', storageClassName: 'fast', whenDeleted: 'Delete' },
          nodeSelector: { 'kubernetes.io/os': 'linux' },
        },
      },
    ],
    refused: [
      { name: 'null', spec: null, path: 'spec', words: ['must be an object'] },
      { name: 'string', spec: 'db', path: 'spec', words: ['must be an object'] },
      {
        name: 'size with a space',
        spec: { storage: { size: '10 Gi' } },
        path: 'spec.storage.size',
        words: ['"10 Gi" is not a size', 'Ki, Mi, Gi', 'write "10Gi"'],
      },
      {
        name: 'size as a number',
        spec: { storage: { size: 10 } },
        path: 'spec.storage.size',
        words: ['must be text, but it is the number 10', 'in quotes, for example "10Gi"'],
      },
      { name: 'whenDeleted', spec: { storage: { whenDeleted: 'Keep' } }, path: 'spec.storage.whenDeleted', words: ['one of', '"Retain"', '"Delete"'] },
      { name: 'quantity of the wrong type', spec: resources({ cpu: [] }, {}), path: 'spec.resources.requests.cpu', words: ['whole number or a quantity'] },
      { name: 'fractional integer quantity', spec: resources({}, { cpu: 1.5 }), path: 'spec.resources.limits.cpu', words: ['quantity'] },
      {
        name: 'resource key with a slash',
        spec: resources({ 'nvidia.com/gpu': true }, {}),
        path: 'spec.resources.requests["nvidia.com/gpu"]',
        words: ['quantity'],
      },
      { name: 'too long credentials name', spec: { credentialsName: 'x'.repeat(254) }, path: 'spec.credentialsName', words: ['too long', '253'] },
      { name: 'unknown engine', spec: { engine: 'Galera' }, path: 'spec.engine', words: ['"Builtin"', '"MariaDBOperator"'] },
      {
        name: 'the archived metal3 mariadb-image',
        spec: { image: 'quay.io/metal3-io/mariadb:latest' },
        path: 'spec.image',
        words: ['archived metal3 mariadb-image', 'docker-entrypoint.sh', 'remove image'],
      },
      { name: 'one Galera node', spec: { engine: 'MariaDBOperator', replicas: 1 }, path: 'spec.replicas', words: ['3'] },
      { name: 'eleven Galera nodes', spec: { engine: 'MariaDBOperator', replicas: 11 }, path: 'spec.replicas', words: ['9'] },
      {
        name: 'priorityClassName with capitals',
        spec: { priorityClassName: 'High' },
        path: 'spec.priorityClassName',
        words: ['"High" is not a DNS subdomain name', 'write "high"'],
      },
      { name: 'priorityClassName too long', spec: { priorityClassName: 'p'.repeat(254) }, path: 'spec.priorityClassName', words: ['too long', '253'] },
      {
        name: 'semantic rules do not run on a malformed spec',
        spec: { storage: { ephemeral: 'yes', storageClassName: 'x', size: '0' } },
        path: 'spec.storage.ephemeral',
        words: ['true or false'],
      },
    ],
  },
  {
    rule: 'the engine of an existing database does not change',
    accepted: [
      { name: 'created with either engine', spec: { engine: 'MariaDBOperator' } },
      { name: 'Builtin, unchanged (defaulted before)', spec: { engine: 'Builtin' }, old: {} },
      { name: 'MariaDBOperator, unchanged', spec: { engine: 'MariaDBOperator' }, old: { engine: 'MariaDBOperator' } },
      { name: 'unset, as before', spec: {}, old: { engine: 'Builtin' } },
    ],
    refused: [
      {
        name: 'Builtin to MariaDBOperator',
        spec: { engine: 'MariaDBOperator' },
        old: {},
        path: 'spec.engine',
        words: ['cannot be changed', 'Builtin', 'create a new IronicDatabase'],
      },
      {
        name: 'MariaDBOperator to Builtin',
        spec: {},
        old: { engine: 'MariaDBOperator' },
        path: 'spec.engine',
        words: ['cannot be changed', 'set engine back to MariaDBOperator'],
      },
    ],
  },
  {
    rule: "a Galera database's volumes never shrink nor change class (mariadb-operator's webhook refuses it)",
    accepted: [
      { name: 'a bigger size', spec: { engine: 'MariaDBOperator', storage: { size: '20Gi' } }, old: { engine: 'MariaDBOperator', storage: { size: '10Gi' } } },
      { name: 'the same size written otherwise', spec: { engine: 'MariaDBOperator', storage: { size: '10240Mi' } }, old: { engine: 'MariaDBOperator' } },
      { name: 'Builtin: a smaller size (the claim template is kept)', spec: { storage: { size: '5Gi' } }, old: {} },
      { name: 'Builtin: another class (the claim template is kept)', spec: { storage: { storageClassName: 'fast' } }, old: {} },
      {
        name: 'the same class',
        spec: { engine: 'MariaDBOperator', storage: { storageClassName: 'fast' } },
        old: { engine: 'MariaDBOperator', storage: { storageClassName: 'fast' } },
      },
      { name: 'created small', spec: { engine: 'MariaDBOperator', storage: { size: '1Gi' } } },
    ],
    refused: [
      {
        name: 'a smaller size',
        spec: { engine: 'MariaDBOperator', storage: { size: '5Gi' } },
        old: { engine: 'MariaDBOperator', storage: { size: '20Gi' } },
        path: 'spec.storage.size',
        words: ['storage.size cannot decrease with engine MariaDBOperator', 'never shrinks the volumes of a Galera cluster', '(its volumes have 20Gi)'],
      },
      {
        name: 'smaller than the default',
        spec: { engine: 'MariaDBOperator', storage: { size: '5Gi' } },
        old: { engine: 'MariaDBOperator' },
        path: 'spec.storage.size',
        words: ['(its volumes have 10Gi)'],
      },
      {
        name: 'a class where there was none',
        spec: { engine: 'MariaDBOperator', storage: { storageClassName: 'fast' } },
        old: { engine: 'MariaDBOperator', storage: { storageClassName: '' } },
        path: 'spec.storage.storageClassName',
        words: ['storage.storageClassName cannot be changed once the database exists', '(its volumes use the cluster default)'],
      },
      {
        name: 'no class where there was one',
        spec: { engine: 'MariaDBOperator' },
        old: { engine: 'MariaDBOperator', storage: { storageClassName: 'slow' } },
        path: 'spec.storage.storageClassName',
        words: ['(its volumes use class slow)'],
      },
    ],
  },
  {
    rule: 'replicas: MariaDBOperator only, and odd',
    accepted: [
      { name: 'three', spec: { engine: 'MariaDBOperator', replicas: 3 } },
      { name: 'nine', spec: { engine: 'MariaDBOperator', replicas: 9 } },
      { name: 'defaulted', spec: { engine: 'MariaDBOperator' } },
    ],
    refused: [
      { name: 'with Builtin', spec: { replicas: 3 }, path: 'spec.replicas', words: ['only for engine MariaDBOperator', 'one MariaDB pod'] },
      { name: 'even', spec: { engine: 'MariaDBOperator', replicas: 4 }, path: 'spec.replicas', words: ['odd', 'majority', 'it is 4'] },
      { name: 'even with Builtin', spec: { replicas: 4 }, path: 'spec.replicas', paths: ['spec.replicas', 'spec.replicas'], words: ['odd'] },
    ],
  },
  {
    rule: 'ephemeral storage is for the Builtin engine only (mariadb-operator refuses it for a Galera cluster)',
    accepted: [
      { name: 'Builtin, ephemeral', spec: { engine: 'Builtin', storage: { ephemeral: true } } },
      { name: 'default engine, ephemeral', spec: { storage: { ephemeral: true } } },
      { name: 'MariaDBOperator, explicitly persistent', spec: { engine: 'MariaDBOperator', storage: { ephemeral: false } } },
      { name: 'MariaDBOperator, persistent by default', spec: { engine: 'MariaDBOperator', storage: { size: '1Gi' } } },
    ],
    refused: [
      {
        name: 'MariaDBOperator, ephemeral',
        spec: { engine: 'MariaDBOperator', storage: { ephemeral: true } },
        path: 'spec.storage.ephemeral',
        words: ['engine MariaDBOperator', 'volumes', 'remove storage.ephemeral'],
      },
      {
        name: 'MariaDBOperator, ephemeral, replicas',
        spec: { engine: 'MariaDBOperator', replicas: 5, storage: { ephemeral: true, size: '1Gi' } },
        path: 'spec.storage.ephemeral',
        words: ['cannot be used with engine MariaDBOperator'],
      },
    ],
  },
  {
    rule: 'storageClassName is not used with ephemeral storage',
    accepted: [
      { name: 'persistent with a class', spec: { storage: { storageClassName: 'fast' } } },
      { name: 'ephemeral without a class', spec: { storage: { ephemeral: true } } },
      { name: 'ephemeral with an empty class', spec: { storage: { ephemeral: true, storageClassName: '' } } },
      { name: 'explicitly persistent with a class', spec: { storage: { ephemeral: false, storageClassName: 'fast' } } },
    ],
    refused: [
      {
        name: 'ephemeral with a class',
        spec: { storage: { ephemeral: true, storageClassName: 'fast' } },
        path: 'spec.storage.storageClassName',
        words: ['ephemeral', 'remove storageClassName'],
      },
    ],
  },
  {
    rule: 'storage.size is a positive quantity',
    accepted: [
      { name: '10Gi', spec: { storage: { size: '10Gi' } } },
      { name: 'decimal suffix', spec: { storage: { size: '500M' } } },
      { name: 'fraction', spec: { storage: { size: '0.5Gi' } } },
      { name: 'plain bytes', spec: { storage: { size: '1048576' } } },
    ],
    refused: [
      { name: '0', spec: { storage: { size: '0' } }, path: 'spec.storage.size', words: ['greater than zero', '10Gi'] },
      { name: '0Gi', spec: { storage: { size: '0Gi' } }, path: 'spec.storage.size', words: ['greater than zero'] },
      { name: '0.0Mi', spec: { storage: { size: '0.0Mi' } }, path: 'spec.storage.size', words: ['greater than zero'] },
    ],
  },
  {
    rule: 'requests do not exceed limits',
    accepted: [
      { name: 'below', spec: resources({ memory: '512Mi', cpu: '100m' }, { memory: '1Gi', cpu: '1' }) },
      { name: 'binary and plain bytes equal', spec: resources({ memory: '1Gi' }, { memory: 1073741824 }) },
      { name: 'Mi and Gi equal', spec: resources({ memory: '1024Mi' }, { memory: '1Gi' }) },
      { name: 'millis and decimal equal', spec: resources({ cpu: '500m' }, { cpu: '0.5' }) },
      { name: 'exponent and suffix equal', spec: resources({ memory: '1e3' }, { memory: '1k' }) },
      { name: 'fraction of Gi', spec: resources({ memory: '1.5Gi' }, { memory: '1536Mi' }) },
      { name: 'request without a limit', spec: resources({ memory: '100Gi' }, { cpu: '1' }) },
      { name: 'limit without a request', spec: resources({}, { memory: '1Mi' }) },
    ],
    refused: [
      {
        name: 'memory',
        spec: resources({ memory: '2Gi' }, { memory: '1Gi' }),
        path: 'spec.resources.requests.memory',
        words: ['memory', 'request', '"2Gi"', 'more than its limit', '"1Gi"', 'lower the request'],
      },
      { name: 'cpu millis', spec: resources({ cpu: '1500m' }, { cpu: 1 }), path: 'spec.resources.requests.cpu', words: ['more than its limit'] },
      {
        name: 'decimal versus binary',
        spec: resources({ memory: '1.1G' }, { memory: '1Gi' }),
        path: 'spec.resources.requests.memory',
        words: ['more than its limit'],
      },
      {
        name: 'extended resource',
        spec: resources({ 'nvidia.com/gpu': 2 }, { 'nvidia.com/gpu': 1 }),
        path: 'spec.resources.requests["nvidia.com/gpu"]',
        words: ['more than its limit'],
      },
      {
        name: 'every resource, sorted',
        spec: resources({ memory: '2Gi', cpu: '2' }, { memory: '1Gi', cpu: '1' }),
        path: 'spec.resources.requests.cpu',
        paths: ['spec.resources.requests.cpu', 'spec.resources.requests.memory'],
        words: ['more than its limit'],
      },
    ],
  },
  {
    rule: 'requests and limits are valid, non-negative quantities',
    accepted: [
      { name: 'strings and integers', spec: resources({ cpu: '100m', memory: 268435456 }, { cpu: 2, memory: '1Gi' }) },
      { name: 'zero', spec: resources({ cpu: 0 }, {}) },
    ],
    refused: [
      {
        name: 'words',
        spec: resources({ cpu: 'one core' }, {}),
        path: 'spec.resources.requests.cpu',
        words: ['"one core"', 'not a Kubernetes quantity', '500m'],
      },
      { name: 'lower-case binary suffix', spec: resources({}, { memory: '1gi' }), path: 'spec.resources.limits.memory', words: ['not a Kubernetes quantity'] },
      {
        name: 'fractional exponent',
        spec: resources({ cpu: '1e1.5' }, { cpu: '1' }),
        path: 'spec.resources.requests.cpu',
        words: ['not a Kubernetes quantity'],
      },
      { name: 'negative', spec: resources({ memory: '-1Gi' }, {}), path: 'spec.resources.requests.memory', words: ['negative'] },
      { name: 'negative integer limit', spec: resources({}, { cpu: -1 }), path: 'spec.resources.limits.cpu', words: ['negative'] },
    ],
  },
  {
    rule: 'nodeSelector keys are qualified names and values label values, as the API server checks them',
    accepted: [
      { name: 'a label', spec: { nodeSelector: { 'node-role.kubernetes.io/control-plane': '' } } },
      { name: 'no prefix, longest name and value', spec: { nodeSelector: { ['a'.repeat(63)]: 'v'.repeat(63), disk_type: 'ssd.fast-1' } } },
    ],
    refused: [
      { name: 'empty key', spec: { nodeSelector: { '': 'x' } }, path: 'spec.nodeSelector[""]', words: ['must not be empty'] },
      { name: 'blank key', spec: { nodeSelector: { ' ': 'x' } }, path: 'spec.nodeSelector[" "]', words: ['must not be empty'] },
      { name: 'two slashes', spec: { nodeSelector: { 'a/b/c': 'x' } }, path: 'spec.nodeSelector["a/b/c"]', words: ['"a/b/c"', 'more than one "/"'] },
      {
        name: 'upper-case prefix',
        spec: { nodeSelector: { 'Example.com/os': 'x' } },
        path: 'spec.nodeSelector["Example.com/os"]',
        words: ['prefix', '"Example.com/os"', 'DNS subdomain'],
      },
      { name: 'empty prefix', spec: { nodeSelector: { '/os': 'x' } }, path: 'spec.nodeSelector["/os"]', words: ['prefix'] },
      { name: 'name too long', spec: { nodeSelector: { ['a'.repeat(64)]: 'x' } }, path: `spec.nodeSelector.${'a'.repeat(64)}`, words: ['at most 63'] },
      {
        name: 'space in the name',
        spec: { nodeSelector: { 'disk type': 'x' } },
        path: 'spec.nodeSelector["disk type"]',
        words: ['"disk type"', 'must end in a name'],
      },
      {
        name: 'value with a slash',
        spec: { nodeSelector: { 'kubernetes.io/os': 'linux/amd64' } },
        path: 'spec.nodeSelector["kubernetes.io/os"]',
        words: ['"linux/amd64"', '"kubernetes.io/os"', 'not a label value'],
      },
      { name: 'value too long', spec: { nodeSelector: { zone: 'z'.repeat(64) } }, path: 'spec.nodeSelector.zone', words: ['"zone"', 'not a label value'] },
    ],
  },
];

const hasWords = (message: string, words: readonly string[]): boolean => words.every((w) => message.toLowerCase().includes(w.toLowerCase()));

for (const table of TABLES) {
  t.test(table.rule, async (t) => {
    for (const c of table.accepted) {
      t.same(validateIronicDatabase(c.spec, c.old), [], `accepts: ${c.name}`);
    }
    for (const c of table.refused) {
      const problems = validateIronicDatabase(c.spec, c.old);
      t.same(
        problems.map((p) => p.path),
        c.paths ?? [c.path],
        `refuses at the expected paths: ${c.name}`,
      );
      t.ok(
        problems.find((p) => p.path === c.path && hasWords(p.message, c.words)),
        `refuses with the key words ${JSON.stringify(c.words)}: ${c.name}`,
        { problems },
      );
    }
  });
}

t.test('all semantic problems are reported, in rule order', async (t) => {
  const spec = {
    storage: { ephemeral: true, storageClassName: 'x', size: '0' },
    ...resources({ memory: '2Gi' }, { memory: '1Gi' }),
    nodeSelector: { '': 'a' },
  };
  t.same(
    validateIronicDatabase(spec).map((p) => p.path),
    ['spec.storage.storageClassName', 'spec.storage.size', 'spec.resources.requests.memory', 'spec.nodeSelector[""]'],
  );
});

t.test('quantities of the database and of Ironic containers follow one rule, with the same messages', async (t) => {
  const cases: readonly (readonly [Record<string, unknown>, Record<string, unknown>, number])[] = [
    [{ cpu: '1 m', memory: '-1Gi' }, { memory: 'lots' }, 3],
    [{ memory: '2Gi', cpu: '1500m' }, { memory: '1Gi', cpu: 1 }, 2],
    [{ 'nvidia.com/gpu': 2, cpu: '-0.5' }, { 'nvidia.com/gpu': 1 }, 2],
    [{ memory: '512Mi' }, { memory: '1Gi' }, 0],
  ];
  for (const [requests, limits, count] of cases) {
    const database = validateIronicDatabase({ resources: { requests, limits } }).map((p) => ({ ...p, path: p.path.replace(/^spec\.resources/, '') }));
    const ironic = validateIronic({ resources: { ironic: { requests, limits } } })
      .filter((p) => p.path.startsWith('spec.resources.ironic'))
      .map((p) => ({ ...p, path: p.path.replace(/^spec\.resources\.ironic/, '') }));
    t.equal(database.length, count, `${JSON.stringify({ requests, limits })}: ${JSON.stringify(database)}`);
    t.same(database, ironic, JSON.stringify({ requests, limits }));
  }
});

const q = (text: string | number): Quantity => {
  const parsed = parseQuantity(text);
  if (parsed === undefined) throw new Error(`${String(text)} should parse`);
  return parsed;
};

t.test('parseQuantity and compareQuantities', async (t) => {
  const equal: readonly (readonly [string | number, string | number])[] = [
    ['1Ki', 1024],
    ['1Mi', '1024Ki'],
    ['1Gi', '1073741824'],
    ['1Ei', '1024Pi'],
    ['1k', 1000],
    ['1M', '1000k'],
    ['1E', '1000P'],
    ['1e3', '1k'],
    ['1E3', 1000],
    ['1e-3', '1m'],
    ['100m', '0.1'],
    ['1u', '1000n'],
    ['.5', '500m'],
    ['5.', 5],
    ['+2', 2],
    ['-1', '-1000m'],
    ['0', '0Gi'],
  ];
  for (const [a, b] of equal) t.equal(compareQuantities(q(a), q(b)), 0, `${String(a)} = ${String(b)}`);
  const less: readonly (readonly [string | number, string | number])[] = [
    ['999', '1k'],
    ['1000M', '1Gi'],
    ['1G', '1Gi'],
    ['999m', 1],
    ['-2', '-1'],
    ['1n', '1u'],
  ];
  for (const [a, b] of less) {
    t.equal(compareQuantities(q(a), q(b)), -1, `${String(a)} < ${String(b)}`);
    t.equal(compareQuantities(q(b), q(a)), 1, `${String(b)} > ${String(a)}`);
  }
  for (const bad of ['', 'Gi', '1 Gi', '1gi', '1e', '1e1.5', '1KiB', '--1', '1e65', '9'.repeat(65), 1.5, Number.MAX_SAFE_INTEGER + 2]) {
    t.equal(parseQuantity(bad), undefined, `${String(bad).slice(0, 20)} does not parse`);
  }
  t.ok(isPositive(q('1m')));
  t.notOk(isPositive(q('0')));
  t.notOk(isPositive(q('-1')));
});

t.test('parseQuantity agrees with plain arithmetic on integers', async (t) => {
  const suffixes = [
    ['', 1n],
    ['k', 1000n],
    ['Ki', 1024n],
    ['M', 1000n ** 2n],
    ['Mi', 1024n ** 2n],
    ['G', 1000n ** 3n],
    ['Gi', 1024n ** 3n],
  ] as const;
  const quantity = fc.tuple(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(...suffixes));
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(quantity, quantity, ([a, [sa, ma]], [b, [sb, mb]]) => {
        const expected = BigInt(a) * ma - BigInt(b) * mb;
        const sign = expected === 0n ? 0 : expected < 0n ? -1 : 1;
        return compareQuantities(q(`${a}${sa}`), q(`${b}${sb}`)) === sign;
      }),
    ),
  );
});

// --- Property tests -----------------------------------------------------------------------------------

const isProblem = (p: unknown): p is Problem =>
  typeof p === 'object' && p !== null && 'path' in p && typeof p.path === 'string' && 'message' in p && typeof p.message === 'string';

const checkTotal = (spec: unknown): boolean => {
  const first = validateIronicDatabase(spec);
  const second = validateIronicDatabase(spec);
  return (
    Array.isArray(first) &&
    first.every(isProblem) &&
    first.every((p) => p.path.startsWith('spec') && !p.message.includes('bug of the operator')) &&
    JSON.stringify(first) === JSON.stringify(second)
  );
};

const quantityLike = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.constantFrom('1Gi', '0', '500m', '1e3', '1e1.5', '1E', '-1', '.5', '1e999999999'),
  fc.tuple(fc.nat(), fc.constantFrom('', 'm', 'k', 'Ki', 'Gi', 'E', 'e3')).map(([n, s]) => `${n}${s}`),
);
const anyValue = fc.anything({ maxDepth: 2 });
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof(arb, arb, anyValue);
const specs = fc
  .tuple(
    fc.object(),
    fc.record(
      {
        storage: maybe(
          fc.record(
            {
              size: maybe(quantityLike),
              storageClassName: maybe(fc.string()),
              ephemeral: maybe(fc.boolean()),
              whenDeleted: maybe(fc.constantFrom('Retain', 'Delete')),
            },
            { requiredKeys: [] },
          ),
        ),
        resources: maybe(
          fc.record(
            {
              requests: fc.dictionary(fc.constantFrom('cpu', 'memory', 'x/y'), quantityLike),
              limits: fc.dictionary(fc.constantFrom('cpu', 'memory', 'x/y'), quantityLike),
            },
            { requiredKeys: [] },
          ),
        ),
        nodeSelector: maybe(fc.dictionary(fc.string(), fc.string())),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([noise, spec]) => ({ ...noise, ...spec }));

t.test('validateIronicDatabase never throws and is deterministic on anything', async (t) => {
  t.doesNotThrow(() => fc.assert(fc.property(fc.anything(), checkTotal), { numRuns: 500 }));
});

t.test('validateIronicDatabase never throws and is deterministic on random storage and resources', async (t) => {
  t.doesNotThrow(() => fc.assert(fc.property(specs, checkTotal), { numRuns: 1000 }));
});
