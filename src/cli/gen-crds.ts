/**
 * `npm run crds`: writes deploy/crds/*.yaml from the TypeBox schemas. The tests fail when the committed
 * files differ from what this writes.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { allCrds } from '../kinds/crds.js';
import { crdFile } from '../crd/yaml.js';

const directory = process.argv[2] ?? 'deploy/crds';
mkdirSync(directory, { recursive: true });
for (const { file, crd } of allCrds()) {
  writeFileSync(join(directory, file), crdFile(crd));
  console.log(`wrote ${join(directory, file)}`);
}
