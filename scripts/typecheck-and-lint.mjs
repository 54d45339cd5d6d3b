// @ts-check
/**
 * The type check and ESLint of `npm test` on one TypeScript program. The type-checked rules of ESLint need
 * the same program that `tsc` builds and checks (tsconfig.test.json: src/, test/ and scripts/), and building
 * and checking it is most of the cost of each. Run as two processes, `npm run typecheck` and `npm run lint`
 * built it twice: about 57 s of CPU on the 2-core machine, against about 37 s here.
 *
 * The program is built once, its diagnostics printed as `tsc` prints them, then handed to ESLint
 * (typescript-eslint's `programs` option) with the rules of eslint.config.js. No cache: a type-checked
 * rule's verdict on a file depends on the types of other files, so a result kept by a file's own content
 * can be stale. Exit code 1 when the type check or ESLint reports an error.
 */
import { ESLint } from 'eslint';
import ts from 'typescript';

/** What npm test lints; the same paths as `npm run lint`. */
const LINTED = ['src', 'test', 'scripts'];

const CONFIG = 'tsconfig.test.json';

/** @type {ts.FormatDiagnosticsHost} */
const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' };

/**
 * The program of tsconfig.test.json, without its incremental build info: nothing is emitted.
 * @returns {ts.Program}
 */
const buildProgram = () => {
  /** @type {ts.Diagnostic[]} */
  const configProblems = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(CONFIG, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => configProblems.push(d) });
  if (parsed === undefined || configProblems.length > 0) throw new Error(ts.formatDiagnostics(configProblems, host) || `cannot read ${CONFIG}`);
  const { incremental: _incremental, tsBuildInfoFile: _tsBuildInfoFile, ...options } = parsed.options;
  return ts.createProgram({ rootNames: parsed.fileNames, options, configFileParsingDiagnostics: parsed.errors });
};

const program = buildProgram();
const typeErrors = ts.getPreEmitDiagnostics(program);
// Coloured with context on a terminal, plain when piped (scripts/check.mjs, CI logs), as tsc does.
const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
if (typeErrors.length > 0) process.stdout.write(format(typeErrors, host));

const eslint = new ESLint({ overrideConfig: { languageOptions: { parserOptions: { project: false, programs: [program] } } } });
const results = await eslint.lintFiles(LINTED);
const formatted = await (await eslint.loadFormatter('stylish')).format(results);
if (formatted !== '') process.stdout.write(formatted);

const lintErrors = results.reduce((sum, result) => sum + result.errorCount, 0);
process.exitCode = typeErrors.length > 0 || lintErrors > 0 ? 1 : 0;
