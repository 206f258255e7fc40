// A private link between two test hosts, for a bastion: the target becomes reachable from the
// bastion only. The machine has no route to the link (the test range's unreachable route covers
// it), so the controller can reach the target through the bastion and in no other way.
import { mustRun } from './command.js';
import { hostObjects } from './paths.js';

export interface LinkableHost {
  readonly name: string;
  readonly address: string;
}

const slotOf = (host: LinkableHost) => {
  const index = Number(/^10\.213\.(\d+)\.2$/.exec(host.address)?.[1]);
  if (!Number.isInteger(index) || index < 1 || index > 254) throw new Error(`${host.name} is not a test host address: ${host.address}`);
  return index;
};

/** The link's /30 sits in the target's slot (.4/30), beside the machine's /30 (.0/30): never shared. */
function linkAddresses(targetIndex: number): { bastion: string; target: string } {
  return { bastion: `10.213.${targetIndex}.5`, target: `10.213.${targetIndex}.6` };
}

/**
 * Joins the two hosts' network namespaces with a veth pair; returns the address at which the
 * bastion reaches the target. The pair goes away with either namespace when a host is brought down.
 */
export async function linkTestHosts(bastion: LinkableHost, target: LinkableHost): Promise<{ targetAddress: string }> {
  const index = slotOf(target);
  const a = linkAddresses(index);
  const [inBastion, inTarget] = [hostObjects(bastion.name).netns, hostObjects(target.name).netns];
  const [bEnd, tEnd] = [`lk${index}b`, `lk${index}t`];
  await mustRun('ip', ['link', 'add', bEnd, 'netns', inBastion, 'type', 'veth', 'peer', 'name', tEnd, 'netns', inTarget]);
  await mustRun('ip', ['-n', inBastion, '-batch', '-'], { input: `addr add ${a.bastion}/30 dev ${bEnd}\nlink set ${bEnd} up\n` });
  await mustRun('ip', ['-n', inTarget, '-batch', '-'], { input: `addr add ${a.target}/30 dev ${tEnd}\nlink set ${tEnd} up\n` });
  return { targetAddress: a.target };
}
