// What one wire operation is: its argument and result schemas and whether it changes the host; and
// the shape of its example, which lives beside it but outside the table, so the helper's bundle leaves it out.
import type * as z from 'zod/mini';

export interface OperationDefinition<A extends z.ZodMiniType = z.ZodMiniType, R extends z.ZodMiniType = z.ZodMiniType, M extends boolean = boolean> {
  /** What the controller sends; unknown keys are refused. */
  args: A;
  /** What the helper answers on success; the controller parses the result line against it. */
  result: R;
  /** A mutating operation runs under the host lock and writes an audit line; a read-only one does neither. */
  mutates: M;
}

/** Valid values of an operation's arguments and result (operations/examples-table.ts). */
export type OperationExample<D extends OperationDefinition> = D extends OperationDefinition<infer A, infer R> ? { args: z.output<A>; result: z.output<R> } : never;

/**
 * One operation, keeping its exact schema types and literal `mutates`, with the schemas built on
 * first use. Every helper call loads every operation, and building all of their schemas was much
 * of its start-up; a call now builds only its own.
 */
export function lazyOperation<A extends z.ZodMiniType, R extends z.ZodMiniType, const M extends boolean>(mutates: M, schemas: () => { args: A; result: R }): OperationDefinition<A, R, M> {
  let built: { args: A; result: R } | undefined;
  const schema = () => (built ??= schemas());
  return {
    mutates,
    get args() {
      return schema().args;
    },
    get result() {
      return schema().result;
    },
  };
}
