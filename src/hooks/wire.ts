/** A plan's answer on Metacontroller's wire: exactly the fields a v2 response may carry, none set to undefined. */
import type { SyncResponse } from '../api/shared/hook.js';

type Result = {
  readonly status: Readonly<Record<string, unknown>>;
  readonly children: readonly unknown[];
  readonly resyncAfterSeconds?: number;
  readonly finalized?: boolean;
};

export const wire = (result: Result): SyncResponse => ({
  status: { ...result.status },
  children: [...result.children],
  ...(result.resyncAfterSeconds !== undefined && { resyncAfterSeconds: result.resyncAfterSeconds }),
  ...(result.finalized !== undefined && { finalized: result.finalized }),
});
