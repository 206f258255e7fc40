// occ-ssh plan <command>: what the command would change on its host, step by step, changing nothing.
// Each host operation is planned by the helper's own planner over what it reads now; a command's later
// operations depend on the earlier ones' changes, so planning stops after the first operation that has
// steps that make something new and names the rest, which are planned for real once those steps exist.
import type { PlannedOperation, PlannedStep, PlanResult } from '@occ-ssh/protocol';
import type { PlanIntent } from '../driver.js';
import type { PlannableCommand } from './args.js';
import type { CommandContext } from './commands.js';
import { Ledger, defaultLedgerPath } from './ledger.js';
import { bindingFrom, namespaceFrom, resourcesFrom } from './resources.js';
import { workspaceContext, workspaceFilesFrom } from './workspace-files.js';

interface PlannedStage {
  operation: PlannedOperation;
  steps: PlannedStep[];
  digest: string;
  after: string | null;
}

/** Steps that only keep what exists as it must be (a temp sweep, a directory kept at its mode, a check): the next operation's reads do not depend on them. */
const UPKEEP = new Set(['sweep-temps', 'ensure-dir', 'checkpoint', 'verify-workspace']);

/** One host operation of a command, asked lazily: the driver call is made only when the stage is reached. */
type Stage = { label: string; intent: () => PlanIntent };

export async function plan(context: CommandContext) {
  const { options, driver, report } = context;
  const command = options.planned!;
  const { title, stages } = stagesOf(command, context);
  report.line(`plan ${title} (nothing is changed)`);
  const planned: PlannedStage[] = [];
  for (const [index, stage] of stages.entries()) {
    const intent = stage.intent();
    const result: PlanResult = await report.step(
      `plan ${stage.label}`,
      () => driver.planOperation(intent),
      (r) => (r.steps.length === 0 ? 'no change' : `${r.steps.length} step(s), plan ${r.digest.slice(0, 12)}`),
    );
    planned.push({ operation: intent.operation, ...result });
    for (const step of result.steps) report.line(`    ${describeStep(step)}`);
    if (result.after) report.line(`    ${result.after}`);
    const pending = stages.slice(index + 1).map((s) => s.label);
    if (result.steps.some((step) => !UPKEEP.has(step.op)) && pending.length > 0) {
      report.line(`  then, planned once the steps above have run: ${pending.join('; ')}`);
      return { command, operations: planned, pending };
    }
  }
  return { command, operations: planned, pending: [] };
}

/** A step as one line: what it does, to what, with owner, mode and digests. */
function describeStep(step: PlannedStep): string {
  const details = Object.entries(step.details).map(([key, value]) => `${key}=${String(value)}`);
  return [step.op, step.target, details.length > 0 ? `(${details.join(' ')})` : ''].filter(Boolean).join(' ');
}

/** The host operations each command runs, in its order, with the arguments it gives them. */
function stagesOf(command: PlannableCommand, { options, driver }: CommandContext): { title: string; stages: Stage[] } {
  switch (command) {
    case 'deploy': {
      const { binding, revision } = resourcesFrom(options);
      const entry = new Ledger(options.ledger ?? defaultLedgerPath()).entry(revision.namespaceId, revision.agentId);
      // As deploy builds it: a setup the ledger records complete is sent completed, without documents.
      const ctx = workspaceContext(revision, workspaceFilesFrom(options), entry?.workspaceSetupId);
      const previous = entry?.active;
      // The deploy's own admission, before any host is asked: a refused revision is refused here too.
      const bind = () => {
        driver.bindAgent(binding);
        driver.validateHarnessAuth(revision.harness, revision.harnessAuth, revision.configuration, revision.secretBindings);
      };
      const stages: Stage[] = [
        { label: 'ensure namespace', intent: () => ({ operation: 'ensure-namespace', namespace: binding.namespace }) },
        { label: 'prepare revision', intent: () => (bind(), { operation: 'prepare-revision', revision }) },
        ...(ctx ? [{ label: 'workspace setup', intent: (): PlanIntent => ({ operation: 'setup-workspace', revision, context: ctx }) }] : []),
        { label: 'activate', intent: () => ({ operation: 'activate-revision', revision, ...(ctx ? { context: ctx } : {}) }) },
        ...(previous && previous.id !== revision.id
          ? [{ label: `retire previous revision ${previous.revision}`, intent: (): PlanIntent => ({ operation: 'retire-revision', revision: previous }) }]
          : []),
      ];
      return { title: `deploy ${revision.agentId} revision ${revision.revision} (${revision.id}) to Namespace ${binding.namespace.name}`, stages };
    }
    case 'stop':
    case 'retire': {
      const { binding, revision } = resourcesFrom(options);
      const operation = command === 'stop' ? 'stop-revision' : 'retire-revision';
      return {
        title: `${command} ${revision.agentId} revision ${revision.revision} (${revision.id})`,
        stages: [{ label: command, intent: () => (driver.bindAgent(binding), { operation, revision }) }],
      };
    }
    case 'delete-agent': {
      const binding = bindingFrom(options);
      return { title: `delete agent ${binding.agent.id} from Namespace ${binding.namespace.name}`, stages: [{ label: 'delete agent', intent: () => ({ operation: 'delete-agent', binding }) }] };
    }
    case 'delete-namespace': {
      const namespace = namespaceFrom(options);
      return { title: `delete namespace ${namespace.name}`, stages: [{ label: 'delete namespace', intent: () => ({ operation: 'delete-namespace', namespace }) }] };
    }
  }
}
