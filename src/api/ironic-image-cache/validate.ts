/**
 * Validation of an IronicImageCache spec: the TypeBox schema first, then the semantic rules on storage,
 * architectures, proxy, tolerations, the node selector and resources. Every problem is reported.
 */
import { imagePullSecretsProblems } from '../shared/pull-secrets.js';
import { Toleration } from 'kubernetes-models/v1/Toleration';
import { CACHE_CONTAINER_NAMES, DEFAULT_IMAGE_CACHE_SIZE, DEFAULT_IPA_ARCHITECTURE } from '../shared/constants.js';
import { registerFormats } from '../shared/formats.js';
import { nodeSelectorProblems } from '../shared/labels.js';
import { IronicImageCacheSpec } from './schema.js';
import { compiledCheck, describeValue, fieldPath, problem, schemaProblems, withoutThrowing, type Problem } from '../shared/problems.js';
import { resourcesProblems } from '../validate-resources.js';
import { storageProblems } from '../shared/validate-storage.js';
import { proxyProblems } from '../shared/proxy.js';
import { repeatedValues } from '../shared/fields.js';

type Rule = (spec: IronicImageCacheSpec) => Problem[];

const storageValid: Rule = (spec) => storageProblems(spec.storage, DEFAULT_IMAGE_CACHE_SIZE);

const architecturesOnce: Rule = (spec) => {
  const names = (spec.architectures ?? []).map((a) => a.name);
  const repeated = repeatedValues(names);
  return repeated.length > 0
    ? [
        problem(
          'spec.architectures',
          `each architecture may appear only once, but ${repeated.map(describeValue).join(', ')} appears more than once: remove the repeated entries`,
        ),
      ]
    : [];
};

/** The downloader's default tarball name ignores IPA_ARCH: any other architecture would get the x86_64 IPA. */
const filenameOutsideDefault: Rule = (spec) =>
  (spec.architectures ?? []).flatMap((architecture, index) =>
    architecture.name !== DEFAULT_IPA_ARCHITECTURE && (architecture.filename === undefined || architecture.filename === '')
      ? [
          problem(
            fieldPath(fieldPath('spec.architectures', index), 'filename'),
            `filename is required for architecture ${describeValue(architecture.name)}: the downloader's default tarball (ipa-<flavor>-<branch>.tar.gz) is the ${DEFAULT_IPA_ARCHITECTURE} IPA; name the ${architecture.name} tarball under agentDownloadURL, for example ipa-centos9-master-${architecture.name}.tar.gz`,
          ),
        ]
      : [],
  );

const tolerationsValid: Rule = (spec) =>
  (spec.tolerations ?? []).flatMap((toleration, index) => {
    const path = fieldPath('spec.tolerations', index);
    try {
      new Toleration(toleration).validate();
      return [];
    } catch (error) {
      const detail = error instanceof Error ? error.message.replace(/\bdata\//g, '').replace(/\bdata\b/g, 'it') : 'is not valid';
      return [problem(path, `${path} is not a valid Kubernetes toleration: ${detail}`)];
    }
  });

const nodeSelectorKeys: Rule = (spec) => nodeSelectorProblems('spec.nodeSelector', spec.nodeSelector);

const proxyValid: Rule = (spec) => proxyProblems(spec.proxy);

// The same rules and messages as an Ironic's spec.resources, for the containers of the cache pod.
const resourcesValid: Rule = (spec) => resourcesProblems(spec.resources, { names: CACHE_CONTAINER_NAMES, owner: 'an IronicImageCache' });

/** The semantic rules, in order. */
const pullSecretsOnce: Rule = (spec) => imagePullSecretsProblems(spec.imagePullSecrets);

const RULES: readonly Rule[] = [
  pullSecretsOnce,
  storageValid,
  architecturesOnce,
  filenameOutsideDefault,
  proxyValid,
  tolerationsValid,
  nodeSelectorKeys,
  resourcesValid,
];

export const isIronicImageCacheSpec = (value: unknown): value is IronicImageCacheSpec => compiledCheck(IronicImageCacheSpec).Check(value);

const validateUnsafe = (spec: unknown): Problem[] => {
  registerFormats();
  const shapeProblems = schemaProblems(IronicImageCacheSpec, spec, 'spec');
  if (shapeProblems.length > 0) return shapeProblems;
  if (!isIronicImageCacheSpec(spec))
    return [problem('spec', 'the spec does not match the IronicImageCache API: compare it with `kubectl explain ironicimagecache.spec`')];
  return RULES.flatMap((rule) => rule(spec));
};

/**
 * Validates an IronicImageCache spec: schema problems alone when the shape is wrong, otherwise the problems
 * of the semantic rules. Pure and total: it never throws, whatever the input.
 */
export const validateIronicImageCache = (spec: unknown): Problem[] => withoutThrowing(() => validateUnsafe(spec));
