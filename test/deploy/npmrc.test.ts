/**
 * The project's .npmrc as npm reads it: errors only, so that `npm ci` on a Node.js older than 26 (Node.js 26 comes
 * from node_modules) does not print the EBADENGINE warnings of this project and its dependencies, and no
 * engine-strict, so that such an install still goes on.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { Type } from '@sinclair/typebox';
import { readJson } from '../helpers/json.js';

/** npm's value of a setting in this directory, without the npm_config_* an enclosing `npm test` exports. */
const npmSetting = (name: string): string => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_config_')));
  return execFileSync('npm', ['config', 'get', name], { env, encoding: 'utf8' }).trim();
};

t.test('npm prints errors only: the EBADENGINE warnings (level warn) are not shown', async (t) => {
  t.equal(npmSetting('loglevel'), 'error');
});

t.test('an older Node.js running npm still installs: engine-strict is off', async (t) => {
  t.equal(npmSetting('engine-strict'), 'false');
  const engines = readJson('package.json', Type.Object({ engines: Type.Object({ node: Type.String() }) })).engines;
  t.equal(engines.node, '>=26', 'the engines npm would warn about');
});
