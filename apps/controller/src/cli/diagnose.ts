// occ-ssh diagnose: one revision's deployment checks, exactly as diagnoseAgentDeployment gives them to OCC.
import type { CommandContext } from './commands.js';
import { resourcesFrom } from './resources.js';

export async function diagnose({ options, driver, report, print }: CommandContext) {
  const { binding, revision } = resourcesFrom(options);
  const diagnosis = await driver.diagnoseAgentDeployment({ ...binding, revision });
  const failed = diagnosis.checks.filter((check) => check.state === 'failed').length;
  report.line(`deployment checks of revision ${diagnosis.revisionId} of Agent ${binding.agent.id}, observed ${diagnosis.observedAt}: ${failed} failed`);
  if (!options.json) for (const check of diagnosis.checks) print(`  ${check.state.padEnd(9)} ${`${check.component} ${check.check}`.padEnd(18)} ${check.code ?? ''}`.trimEnd() + '\n');
  return diagnosis;
}
