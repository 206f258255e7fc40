// delete-agent: verify one Agent's markers, account and unit, then remove its unit, directory and account.
import * as z from 'zod/mini';
import { agentOwner } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_PORT } from './examples.js';

export const deleteAgentOperation = lazyOperation(true, () => ({
  args: z.strictObject({ owner: agentOwner }),
  result: z.strictObject({
    /** The Agent directory (or a twin an earlier, cut deletion renamed away) was there. */
    agentExisted: z.boolean(),
    accountRemoved: z.boolean(),
    unitRemoved: z.boolean(),
    /** The gateway port the Agent's marker held, now free for another Agent; null when no marker was left. */
    portFreed: z.nullable(z.int().check(z.minimum(1), z.maximum(65535))),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const deleteAgentExample = (): OperationExample<typeof deleteAgentOperation> => ({
  args: { owner: EXAMPLE_OWNER },
  result: { agentExisted: true, accountRemoved: true, unitRemoved: true, portFreed: EXAMPLE_PORT },
});
