/**
 * The features of an Ironic: every module of src/render/ironic/features, loaded once when the hook server
 * starts and put in order by featureList. The directory is read next to this file, in the language this file
 * runs as (the TypeScript sources under the tests, the compiled JavaScript in dist), so a feature is added by
 * adding its file; tsconfig.runtime.json compiles the whole directory for the image.
 */
import { readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IronicFeature } from '../render/ironic/feature.js';
import { featureList, type FeatureModule } from '../render/ironic/feature-list.js';

/** The directory of the feature modules. */
export const FEATURES_DIR = join(import.meta.dirname, '..', 'render', 'ironic', 'features');

/** The modules of a directory whose names end in `extension` (not declaration files), by file name. */
export const loadFeatureModules = async (dir: string, extension: string): Promise<FeatureModule[]> => {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith(extension) && !file.endsWith(`.d${extension}`))
    .sort();
  return Promise.all(files.map(async (file) => ({ file, exports: (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown> })));
};

export const IRONIC_FEATURES: readonly IronicFeature[] = featureList(await loadFeatureModules(FEATURES_DIR, extname(import.meta.filename)));
