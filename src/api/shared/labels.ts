/**
 * Node selector entries as the API server checks them on a pod: every key a qualified name (an optional DNS
 * subdomain prefix and `/`, then a name of at most 63 characters), every value a label value. A pod spec
 * that breaks them is refused by the API server after the hook has answered, so the spec is refused first,
 * naming the entry.
 */
import { describeValue, fieldPath, problem, type Problem } from './problems.js';

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_MAX = 63;
const PREFIX_MAX = 253;

const EXAMPLE = 'for example kubernetes.io/os or node-role.kubernetes.io/control-plane';

/** Why a label key is not a qualified name, or undefined when it is. */
const keyProblem = (key: string): string | undefined => {
  if (key.trim() === '') return 'node selector keys must not be empty: remove this entry, or use a node label key such as kubernetes.io/os';
  const parts = key.split('/');
  if (parts.length > 2) return `the node selector key ${describeValue(key)} has more than one "/": write it as an optional prefix, "/" and a name, ${EXAMPLE}`;
  const [prefix, name] = parts.length === 2 ? [parts[0] ?? '', parts[1] ?? ''] : [undefined, key];
  if (prefix !== undefined && (prefix.length > PREFIX_MAX || !DNS_SUBDOMAIN.test(prefix))) {
    return `the prefix of the node selector key ${describeValue(key)} must be a lower-case DNS subdomain of at most ${PREFIX_MAX} characters, ${EXAMPLE}`;
  }
  if (name.length > NAME_MAX || !NAME.test(name)) {
    return `the node selector key ${describeValue(key)} must end in a name of at most ${NAME_MAX} letters, digits, "-", "_" or ".", starting and ending with a letter or digit, ${EXAMPLE}`;
  }
  return undefined;
};

/** Why a label value is not valid, or undefined when it is. */
const valueProblem = (key: string, value: string): string | undefined =>
  value === '' || (value.length <= NAME_MAX && NAME.test(value))
    ? undefined
    : `the value ${describeValue(value)} of the node selector key ${describeValue(key)} is not a label value: at most ${NAME_MAX} letters, digits, "-", "_" or ".", starting and ending with a letter or digit (or empty)`;

/** The problems of a node selector at `path` (spec.nodeSelector), each at the path of its entry. */
export const nodeSelectorProblems = (path: string, selector: Readonly<Record<string, string>> | undefined): Problem[] =>
  Object.entries(selector ?? {}).flatMap(([key, value]) => {
    const message = keyProblem(key) ?? valueProblem(key, value);
    return message === undefined ? [] : [problem(fieldPath(path, key), message)];
  });
