// What an account that is neither root nor the Agent can read on the host.
import { ROOT, UNIT_DIR } from '@occ-ssh/test-support';
import type { HostLink } from '../host/ssh.js';

/** An account that is neither root nor the Agent: what any other account on the host can read, it can. */
const OTHER = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'];

/**
 * As another account: the contents of every regular file under the root and the unit directory it
 * can open (root lists the paths, so a file in a directory it cannot list is tried too, by name, as
 * a sibling who knows the layout would), one `path:line` per line, and `systemctl show --all` of
 * every gateway unit, asked over D-Bus as that account.
 */
export async function readableByOthers(link: HostLink): Promise<{ files: string; properties: string; units: number }> {
  const paths = await link.run(['find', ROOT, UNIT_DIR, '-type', 'f', '-print0']);
  const files = (await link.exec([...OTHER, 'xargs', '-0', '-r', 'grep', '-a', '-H', '-s', '', '--'], { input: paths })).stdout;
  const listed = await link.run(['systemctl', 'list-units', '--all', '--plain', '--no-legend', '--type=service', 'openclaw-enterprise-gateway-*']);
  const units = listed
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((unit) => unit.endsWith('.service'));
  const properties = units.length === 0 ? '' : (await link.exec([...OTHER, 'systemctl', 'show', '--all', ...units])).stdout;
  return { files, properties, units: units.length };
}
