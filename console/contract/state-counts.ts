/**
 * How many orders each state holds, counted by paging the operator list (StateIndex) up to
 * STATE_COUNT_LIMIT: the one counting rule of the local backend (bin/console-server.ts) and the
 * deployed console (deployed-api.ts), which both have only the operator list to count with.
 */
import {
  OPERATOR_LIST_MAX_LIMIT,
  type OperatorOrderListBody,
} from '../../lambdas/scheduler-agent-supervisor/contracts/api';
import { ProcessState } from '../../lambdas/scheduler-agent-supervisor/contracts/states';
import { STATE_COUNT_LIMIT, type StateCount } from './console-api';

export interface ListQuery {
  readonly state: string;
  readonly limit?: number;
  readonly cursor?: string;
}

/** One page of the operator list; throws (in words) when the API does not answer 200. */
export type ListPage = (query: ListQuery) => Promise<OperatorOrderListBody>;

export async function countStates(listPage: ListPage): Promise<StateCount[]> {
  return Promise.all(
    Object.values(ProcessState).map(async (state) => {
      let count = 0;
      let cursor: string | undefined;
      do {
        const page = await listPage({
          state,
          limit: OPERATOR_LIST_MAX_LIMIT,
          ...(cursor !== undefined && { cursor }),
        });
        count += page.items.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined && count < STATE_COUNT_LIMIT);
      return { state, count, atLeast: cursor !== undefined };
    }),
  );
}
