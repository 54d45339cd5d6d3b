/**
 * What is wrong with a hook request whose envelope fails its schema, in words: the fields missing, then the
 * fields of the wrong type (`finalizing must be true or false`), rather than TypeBox's
 * `body/parent Expected required property, body/parent Expected object`.
 */
import { wordList } from '../kinds/index.js';

/** One problem as the validator reports it: a JSON pointer into the body and TypeBox's words. */
export type ValidationIssue = { readonly instancePath: string; readonly message?: string | undefined };

const REQUIRED = 'Expected required property';

/** TypeBox's words for a wrong type, and ours. */
const WORDS: readonly (readonly [RegExp, string])[] = [
  [/^Expected object$/, 'must be an object'],
  [/^Expected string$/, 'must be text'],
  [/^Expected string length greater or equal to 1$/, 'must not be empty'],
  [/^Expected boolean$/, 'must be true or false'],
  [/^Expected number$/, 'must be a number'],
  [/^Expected union value$/, 'must be a map of objects as Metacontroller sends it (Kind.group/version, then namespace/name, then the object)'],
];

/** `the body`, or the field's path with dots: `parent.metadata.name`. */
const fieldName = (pointer: string): string => (pointer === '' ? 'the body' : pointer.slice(1).split('/').join('.'));

/** Our words for a wrong value: TypeBox's translated, else quoted after `is invalid`. */
const wrongType = (message: string | undefined): string => {
  if (message === undefined) return 'is invalid';
  return WORDS.find(([pattern]) => pattern.test(message))?.[1] ?? `is invalid: ${message}`;
};

/** What a request without a parent, or not an object at all, is missing. */
const ENVELOPE = 'a hook request of Metacontroller is a JSON object with the parent object (and, for sync and finalize, its children and related objects)';

/** The problems of a request, in one sentence of parts separated by semicolons. */
export const describeValidation = (issues: readonly ValidationIssue[]): string => {
  const missing = [...new Set(issues.filter((i) => i.message === REQUIRED).map((i) => i.instancePath))];
  const wrong = new Map<string, string>();
  for (const issue of issues)
    if (!missing.includes(issue.instancePath) && !wrong.has(issue.instancePath)) wrong.set(issue.instancePath, wrongType(issue.message));
  const parts = [
    ...(missing.length === 0 ? [] : [`${wordList(missing.map(fieldName))} ${missing.length === 1 ? 'is' : 'are'} missing`]),
    ...[...wrong].map(([pointer, words]) => `${fieldName(pointer)} ${words}`),
  ];
  const envelope = missing.includes('/parent') || wrong.has('') || wrong.has('/parent');
  return `${parts.join('; ')}${envelope ? `: ${ENVELOPE}` : ''}`;
};
