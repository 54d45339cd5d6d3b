/**
 * The README's baremetal-operator recipes: BMO refuses to start with only one of DEPLOY_KERNEL_URL and
 * DEPLOY_RAMDISK_URL (pkg/provisioner/ironic/factory.go, loadConfigFromEnv), and writes them into every host's
 * driver_info, where they win over Ironic's configuration. With an IronicImageCache, Ironic's httpd has no IPA
 * (no downloader runs in the Ironic pods), so that recipe must not point BMO at it.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { parseYaml } from '../helpers/json.js';

type Recipe = { title: string; literals: Record<string, string> };

const Kustomization = Type.Object({
  configMapGenerator: Type.Optional(Type.Array(Type.Object({ name: Type.String(), literals: Type.Optional(Type.Array(Type.String())) }))),
});

const recipes = (): Recipe[] =>
  [...readFileSync('README.md', 'utf8').matchAll(/```yaml\n(# bmo\/kustomization\.yaml[^\n]*)\n([\s\S]*?)```/g)].map((m) => {
    const doc = parseYaml(m[2] ?? '', Kustomization, 'README BMO recipe');
    const literals = (doc.configMapGenerator ?? []).find((g) => g.name === 'ironic')?.literals ?? [];
    return { title: m[1] ?? '', literals: Object.fromEntries(literals.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) };
  });

t.test('every BMO recipe sets both deploy URLs or neither, as BMO requires', async (t) => {
  const all = recipes();
  t.ok(all.length >= 2, 'a recipe without and one with an image cache');
  for (const recipe of all) {
    t.equal('DEPLOY_KERNEL_URL' in recipe.literals, 'DEPLOY_RAMDISK_URL' in recipe.literals, recipe.title);
    t.equal(recipe.literals['IRONIC_NAME'], 'ironic', `${recipe.title}: names the Ironic`);
  }
});

t.test("the BMO recipe with an image cache does not point at Ironic's httpd, which has no IPA then", async (t) => {
  const cached = recipes().filter((r) => r.title.includes('IronicImageCache'));
  t.equal(cached.length, 1, 'the README shows the recipe for an IronicImageCache');
  for (const recipe of cached) {
    for (const name of ['DEPLOY_KERNEL_URL', 'DEPLOY_RAMDISK_URL']) {
      const url = recipe.literals[name];
      t.ok(url === undefined || url.includes('-ipa-cache.'), `${name} is unset or the cache's URL, not ${String(url)}`);
    }
  }
});
