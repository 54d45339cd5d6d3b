/**
 * A last check of what the hooks return before it is sent. Metacontroller decodes v2 responses
 * strictly: an unknown top-level key, a null where an object is due or a child without apiVersion
 * and kind fails the whole sync. Such a response is a bug, so it becomes a 500 that names the problem
 * in the logs instead of a response that Metacontroller would reject.
 */
import { Type } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { CustomizeResponse, SyncResponse } from '../api/shared/hook.js';

/** What Metacontroller needs of each child (metadata.namespace defaults to the parent's). */
const Child = Type.Object(
  {
    apiVersion: Type.String({ minLength: 1 }),
    kind: Type.String({ minLength: 1 }),
    metadata: Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

const checkSync = TypeCompiler.Compile(SyncResponse);
const checkChild = TypeCompiler.Compile(Child);
const checkCustomize = TypeCompiler.Compile(CustomizeResponse);

export class ResponseShapeError extends Error {
  override readonly name = 'ResponseShapeError';
}

const problem = <T extends Parameters<typeof TypeCompiler.Compile>[0]>(check: TypeCheck<T>, value: unknown, where: string): string | undefined => {
  if (check.Check(value)) return undefined;
  const first = check.Errors(value).First();
  return `${where}${first?.path ?? ''}: ${first?.message ?? 'invalid'}`;
};

const fail = (message: string | undefined): void => {
  if (message !== undefined) throw new ResponseShapeError(`the hook built a response Metacontroller would reject: ${message}`);
};

/** Exactly `status`, `children` and the optional `resyncAfterSeconds` and `finalized`; complete children. */
export const checkSyncResponse = (response: unknown): void => {
  fail(problem(checkSync, response, 'response'));
  const children = (response as SyncResponse).children;
  for (const [index, child] of children.entries()) fail(problem(checkChild, child, `children/${index}`));
};

/** Exactly `relatedResources`, with rules of the known fields. */
export const checkCustomizeResponse = (response: unknown): void => fail(problem(checkCustomize, response, 'response'));
