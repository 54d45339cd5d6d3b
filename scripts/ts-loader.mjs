// @ts-check
/**
 * Runs the TypeScript sources in place for the tests: tap starts every test process with
 * `--import=./scripts/ts-loader.mjs` (package.json "tap" "node-arg"). JavaScript itself, so that loading
 * it does not start Node's TypeScript stripper.
 *
 * In-thread module hooks, so a test process pays nearly nothing for the modules that are not ours:
 * - an import of `./x.js` from a `.ts` file loads `./x.ts` when that exists (the NodeNext spelling);
 * - a `.ts` file has its types stripped by Node (positions unchanged, so coverage and stack traces need
 *   no source map); a file with syntax that stripping cannot erase (a parameter property, an enum) is
 *   transpiled by the project's TypeScript instead, with an inline source map;
 * - the JavaScript made from each source is kept in node_modules/.cache/ts-loader under a hash of the
 *   file's path and content, so later test processes load neither the stripper nor TypeScript;
 * - source maps are read for our files only: tap turns them on for every module, and parsing the maps
 *   of the packages in node_modules costs each test process a few hundred milliseconds.
 *
 * No type checking happens here: `npm run typecheck` does that once for the whole tree.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, registerHooks, setSourceMapsSupport, stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the JavaScript made from the same source changes. */
const FORMAT = '1';

const CACHE = fileURLToPath(new URL('../node_modules/.cache/ts-loader/', import.meta.url));

/** @type {((source: string, fileName: string) => string) | undefined} */
let transpiler;

/**
 * TypeScript's own transpiler, loaded only the first time a file needs more than stripping.
 * @param {string} source
 * @param {string} fileName
 * @returns {string}
 */
const transpile = (source, fileName) => {
  if (transpiler === undefined) {
    /** @type {typeof import('typescript')} */
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- require() returns `any`; the JSDoc above gives TypeScript's own type.
    const ts = createRequire(import.meta.url)('typescript');
    transpiler = (text, name) =>
      ts.transpileModule(text, {
        fileName: name,
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2024,
          verbatimModuleSyntax: true,
          inlineSourceMap: true,
          inlineSources: true,
        },
      }).outputText;
  }
  return transpiler(source, fileName);
};

/**
 * @param {unknown} error
 * @returns {boolean}
 */
const isUnsupportedSyntax = (error) => error instanceof Error && 'code' in error && error.code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX';

/**
 * @param {string} source
 * @param {string} file
 * @returns {string}
 */
const toJavaScript = (source, file) => {
  try {
    return stripTypeScriptTypes(source);
  } catch (error) {
    if (!isUnsupportedSyntax(error)) throw error;
    return transpile(source, file);
  }
};

/**
 * @param {string} text
 * @returns {string}
 */
const hash = (text) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * Stores the JavaScript of a file's current version and drops the file's older versions. Written to
 * a temporary name and renamed, since test processes run in parallel; a failure only loses the cache.
 * @param {string} prefix
 * @param {string} name
 * @param {string} output
 */
const store = (prefix, name, output) => {
  try {
    mkdirSync(CACHE, { recursive: true });
    const temporary = join(CACHE, `${name}.${String(process.pid)}.tmp`);
    writeFileSync(temporary, output);
    renameSync(temporary, join(CACHE, name));
    for (const entry of readdirSync(CACHE)) {
      if (entry.startsWith(prefix) && entry !== name && entry.endsWith('.js')) rmSync(join(CACHE, entry), { force: true });
    }
  } catch {
    // A read-only or full disk only loses the cache.
  }
};

/**
 * The JavaScript for a source, from the cache or made and stored.
 * @param {string} source
 * @param {string} file
 * @returns {string}
 */
const compiled = (source, file) => {
  const prefix = `${hash(`${FORMAT}\0${process.version}\0${file}`)}-`;
  const name = `${prefix}${hash(source)}.js`;
  try {
    return readFileSync(join(CACHE, name), 'utf8');
  } catch {
    const output = toJavaScript(source, file);
    store(prefix, name, output);
    return output;
  }
};

/**
 * @param {string} url
 * @returns {boolean}
 */
const isOurTypeScript = (url) => url.startsWith('file:') && url.endsWith('.ts') && !url.includes('/node_modules/');

setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (parent !== undefined && isOurTypeScript(parent) && specifier.startsWith('.') && specifier.endsWith('.js')) {
      const candidate = new URL(`${specifier.slice(0, -3)}.ts`, parent);
      if (existsSync(fileURLToPath(candidate))) return nextResolve(candidate.href, context);
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!isOurTypeScript(url)) return nextLoad(url, context);
    const file = fileURLToPath(url);
    return { format: 'module', source: compiled(readFileSync(file, 'utf8'), file), shortCircuit: true };
  },
});
