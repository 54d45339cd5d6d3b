/**
 * `npm run crds`: writes deploy/crds/*.yaml from the TypeBox schemas, and the in-use admission policies
 * of the kinds Ironics use to deploy/admission (src/crd/in-use-policy.ts). The tests fail when the
 * committed files differ from what this writes. The argument, if any, replaces `deploy`.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { allCrds } from '../kinds/crds.js';
import { allInUsePolicies } from '../kinds/in-use-policies.js';
import { crdFile } from '../crd/yaml.js';

const write = (directory: string, files: readonly { readonly file: string; readonly text: string }[]): void => {
  mkdirSync(directory, { recursive: true });
  for (const { file, text } of files) {
    writeFileSync(join(directory, file), text);
    console.log(`wrote ${join(directory, file)}`);
  }
};

const root = process.argv[2] ?? 'deploy';
write(
  join(root, 'crds'),
  allCrds().map(({ file, crd }) => ({ file, text: crdFile(crd) })),
);
write(join(root, 'admission'), allInUsePolicies());
