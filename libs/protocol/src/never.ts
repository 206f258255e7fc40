// The one exhaustiveness check: a switch over a closed union ends in `default: return assertNever(x, ...)`,
// so a new member of the union fails the typecheck until every such switch handles it.
export function assertNever(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
