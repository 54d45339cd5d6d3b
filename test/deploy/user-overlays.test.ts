/**
 * Overlays of your own, outside this repository, as the README shows them: the README's own example (next
 * to a copy of the checkout, and next to a symbolic link to it), image retags that must move HOOK_IMAGE
 * with the container image, and the optional component combined with the base and with an overlay.
 */
import t, { type Test } from 'tap';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { kustomizeBuild, objectId, type Obj } from './kustomize.js';
import { validateDeployObject } from './validate.js';
import { Type } from '@sinclair/typebox';
import { childOf } from '../helpers/children.js';
import { checked, readJson } from '../helpers/json.js';
import { objAt, objsAt, present } from '../support/paths.js';

const CHECKOUT = 'ironic-metacontroller';
const IMAGE = 'ironic-metacontroller-hooks';
const VERSION = readJson('package.json', Type.Object({ version: Type.String() })).version;
const COMPONENT = 'deploy/components/api-credentials-name';

/** A directory outside the repository holding `ironic-metacontroller/` (a copy of deploy/, or a link). */
const workspace = (t: Test, checkout: 'copy' | 'symlink'): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ironic-overlay-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  if (checkout === 'copy') cpSync('deploy', join(dir, CHECKOUT, 'deploy'), { recursive: true });
  else symlinkSync(resolve('.'), join(dir, CHECKOUT), 'dir');
  return dir;
};

const overlay = (dir: string, name: string, kustomization: Obj): string => {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', ...kustomization }));
  return path;
};

const hookContainer = (objects: readonly Obj[]): IContainer => {
  const deployment = childOf(objects, 'Deployment', 'ironic-hooks');
  const container = deployment?.spec?.template.spec?.containers[0];
  if (container === undefined) throw new Error('no hook container');
  return container;
};
const envOf = (container: IContainer): Record<string, string | undefined> => Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));

/** The README's `my-ironic/kustomization.yaml` example, as written there. */
const readmeExample = (): Obj => {
  const block = /```yaml\n(# my-ironic\/kustomization\.yaml[^\n]*\n[\s\S]*?)```/.exec(readFileSync('README.md', 'utf8'))?.[1];
  if (block === undefined) throw new Error('README.md has no my-ironic/kustomization.yaml example');
  return objAt(parse(block));
};

t.test("the README's overlay builds next to a copy of the checkout and next to a link to it", async (t) => {
  const example = readmeExample();
  t.same(example['resources'], [`../${CHECKOUT}/deploy/base`], 'it lists the base of the checkout');
  const expected = kustomizeBuild('deploy/base').map(objectId).sort();
  for (const checkout of ['copy', 'symlink'] as const) {
    const objects = kustomizeBuild(overlay(workspace(t, checkout), 'my-ironic', example));
    t.same(objects.map(objectId).sort(), expected, `${checkout}: the same objects as deploy/base`);
    const images = checked(Type.Array(Type.Object({ newName: Type.String(), newTag: Type.String() })), example['images'], 'images');
    const image = `${images[0]?.newName ?? ''}:${images[0]?.newTag ?? ''}`;
    t.equal(hookContainer(objects).image, image, `${checkout}: the retagged image`);
    t.equal(envOf(hookContainer(objects))['HOOK_IMAGE'], image, `${checkout}: HOOK_IMAGE follows the retag`);
  }
});

t.test('every overlay and the component build from outside the repository', async (t) => {
  const dir = workspace(t, 'copy');
  const targets = [`../${CHECKOUT}/deploy/base`, `../${CHECKOUT}/deploy/overlays/servicemonitor`, `../${CHECKOUT}/deploy/overlays/mariadb-operator`];
  targets.forEach((target, i) => {
    t.doesNotThrow(() => kustomizeBuild(overlay(dir, `plain-${i}`, { resources: [target] })), target);
    const objects = kustomizeBuild(overlay(dir, `component-${i}`, { resources: [target], components: [`../${CHECKOUT}/${COMPONENT}`] }));
    const added = objects.map(objectId).filter((id) => id.startsWith('admissionregistration.k8s.io/v1/Mutating'));
    t.same(
      added.sort(),
      [
        'admissionregistration.k8s.io/v1/MutatingAdmissionPolicy//ironic-api-credentials-name.ironic.metal3.io',
        'admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding//ironic-api-credentials-name.ironic.metal3.io',
      ],
      `${target} with the component`,
    );
    for (const object of objects) t.doesNotThrow(() => validateDeployObject(object), `${target} + component: ${objectId(object)}`);
  });
});

t.test('an images: retag changes the hook image and HOOK_IMAGE together, and nothing else', async (t) => {
  const dir = workspace(t, 'copy');
  const base = kustomizeBuild('deploy/base');
  const before = envOf(hookContainer(base));
  t.equal(before['HOOK_IMAGE'], `${IMAGE}:${VERSION}`);
  const digest = `sha256:${'ab'.repeat(32)}`;
  const cases = [
    {
      scenario: 'a new registry and tag',
      rule: { name: IMAGE, newName: 'registry.example.com:5000/team/hooks', newTag: '1.2.3' },
      image: 'registry.example.com:5000/team/hooks:1.2.3',
    },
    { scenario: 'a tag only', rule: { name: IMAGE, newTag: '0.2.0' }, image: `${IMAGE}:0.2.0` },
    { scenario: 'a digest', rule: { name: IMAGE, newName: 'registry.example.com/hooks', digest }, image: `registry.example.com/hooks@${digest}` },
  ];
  const added: Readonly<Record<string, Record<string, string>>> = {
    base: {},
    'overlays/servicemonitor': { SERVICE_MONITORS: 'true' },
    'overlays/mariadb-operator': { MARIADB_OPERATOR: 'true' },
  };
  for (const target of ['base', 'overlays/servicemonitor', 'overlays/mariadb-operator']) {
    for (const { scenario, rule, image } of cases) {
      const objects = kustomizeBuild(
        overlay(dir, `retag-${target.replace('/', '-')}-${rule.newTag ?? 'digest'}`, { resources: [`../${CHECKOUT}/deploy/${target}`], images: [rule] }),
      );
      const container = hookContainer(objects);
      const env = envOf(container);
      t.equal(container.image, image, `${target}, ${scenario}: the container image`);
      t.equal(env['HOOK_IMAGE'], image, `${target}, ${scenario}: HOOK_IMAGE`);
      const others = Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'HOOK_IMAGE'));
      const expected = Object.fromEntries(Object.entries(before).filter(([name]) => name !== 'HOOK_IMAGE'));
      t.same(others, { ...expected, ...added[target] }, `${target}, ${scenario}: the other variables are untouched`);
    }
  }
  const other = kustomizeBuild(overlay(dir, 'retag-other', { resources: [`../${CHECKOUT}/deploy/base`], images: [{ name: 'some-other-image', newTag: '9' }] }));
  t.equal(envOf(hookContainer(other))['HOOK_IMAGE'], `${IMAGE}:${VERSION}`, 'a rule for another image leaves HOOK_IMAGE alone');
});

t.test('the cert-manager component adds Certificates and CERT_MANAGER to the base, an overlay, and next to the other component', async (t) => {
  const dir = workspace(t, 'copy');
  const cases = [
    { resources: [`../${CHECKOUT}/deploy/base`], components: [`../${CHECKOUT}/deploy/components/cert-manager`], monitors: false },
    {
      resources: [`../${CHECKOUT}/deploy/overlays/servicemonitor`],
      components: [`../${CHECKOUT}/deploy/components/cert-manager`, `../${CHECKOUT}/${COMPONENT}`],
      monitors: true,
    },
  ];
  cases.forEach(({ resources, components, monitors }, i) => {
    const objects = kustomizeBuild(overlay(dir, `cert-manager-${i}`, { resources, components }));
    const controller = present(childOf(objects, 'CompositeController', 'ironic'), 'CompositeController ironic');
    const children = objsAt(controller, 'spec', 'childResources').map(
      (c) => `${String(c['apiVersion'])}/${String(c['resource'])}:${String(objAt(c, 'updateStrategy')['method'])}`,
    );
    t.ok(children.includes('cert-manager.io/v1/certificates:InPlace'), `${resources[0] ?? ''}: Certificates are managed in place`);
    t.equal(children.includes('monitoring.coreos.com/v1/servicemonitors:InPlace'), monitors, 'the overlay keeps its own child type');
    t.equal(envOf(hookContainer(objects))['CERT_MANAGER'], 'true', 'the hook renders Certificates');
    t.equal(envOf(hookContainer(objects))['SERVICE_MONITORS'], monitors ? 'true' : undefined);
    for (const object of objects) t.doesNotThrow(() => validateDeployObject(object), objectId(object));
  });
  const base = kustomizeBuild('deploy/base');
  t.equal(envOf(hookContainer(base))['CERT_MANAGER'], undefined, 'not without the component');
});
