// The network inside an overlay member (service-today.md section 11): eth0 is the overlay, and its
// address (what `ip a`, `ip -4 -o addr show eth0` and `hostname -I` print) is the member's own
// loopback address 127.<netBase>.<octet>.<n>. Linux routes all of 127/8 on lo, so a process inside
// can bind that address and the members reach each other over real TCP. A small `ip` and
// `hostname` first on the PATH of the member's shells and onstart say so; nothing else changes.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxRoot } from './sandbox';
import type { SimInstance, SimState } from './state';

/** The bridge to the internet, eth1 inside a member (a fixed, unroutable-here address). */
const BRIDGE = '172.17.0.2';

function ipScript(addr: string): string {
  const brd = addr.replace(/\.\d+$/, '.255');
  return `#!/bin/sh
# The simulator's ip for an overlay member: eth0 is the overlay (this member's own address), eth1 the bridge.
one=; dev=; route=; first=
for a in "$@"; do
  case "$a" in
    -o|-oneline|--oneline) one=1 ;;
    -4|-f|inet|-br|-c|-d) ;;
    lo|eth0|eth1) dev=$a ;;
    r|ro|rou|rout|route) [ -z "$first" ] && route=1 ;;
  esac
  case "$a" in -*) ;; *) first=\${first:-$a} ;; esac
done
if [ -n "$route" ]; then
  echo "default via 172.17.0.1 dev eth1"
  echo "${addr.replace(/\.\d+$/, '.0')}/24 dev eth0 proto kernel scope link src ${addr}"
  echo "172.17.0.0/16 dev eth1 proto kernel scope link src ${BRIDGE}"
  exit 0
fi
show() {
  if [ -n "$dev" ] && [ "$dev" != "$2" ]; then return; fi
  if [ -n "$one" ]; then
    printf '%s: %s    inet %s scope %s %s\\       valid_lft forever preferred_lft forever\\n' "$1" "$2" "$3" "$4" "$2"
  else
    printf '%s: %s: <%s> mtu %s qdisc noqueue state UP group default\\n    inet %s scope %s %s\\n       valid_lft forever preferred_lft forever\\n' "$1" "$2" "$5" "$6" "$3" "$4" "$2"
  fi
}
show 1 lo "127.0.0.1/8" host "LOOPBACK,UP,LOWER_UP" 65536
show 2 eth0 "${addr}/24 brd ${brd}" global "BROADCAST,MULTICAST,UP,LOWER_UP" 1450
show 3 eth1 "${BRIDGE}/16 brd 172.17.255.255" global "BROADCAST,MULTICAST,UP,LOWER_UP" 1500
`;
}

function hostnameScript(addr: string, name: string): string {
  return `#!/bin/sh
# The simulator's hostname for an overlay member: -I lists its addresses (the overlay's first), -i the overlay's.
case "$1" in
  -I|--all-ip-addresses) echo "${addr} ${BRIDGE} " ;;
  -i|--ip-address) echo "${addr}" ;;
  *) echo "${name}" ;;
esac
`;
}

/** The host name a member's shells see (the container's, as the service names it). */
export const memberHostName = (inst: SimInstance): string => `C.${inst.id}`;

const written = new WeakMap<SimState, Set<string>>();

/** The folder of the member's `ip` and `hostname` (written once: a shell may be reading them), or undefined off an overlay. */
export function memberBin(state: SimState, inst: SimInstance): string | undefined {
  if (!inst.overlay) return undefined;
  const dir = join(sandboxRoot(state), `net-${inst.id}`);
  let done = written.get(state);
  if (!done) written.set(state, (done = new Set()));
  if (done.has(dir)) return dir;
  done.add(dir);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of [
    ['ip', ipScript(inst.overlay.addr)],
    ['hostname', hostnameScript(inst.overlay.addr, memberHostName(inst))],
  ] as const) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

/** PATH inside this instance: the member's `ip` and `hostname` first when it is on an overlay. */
export function memberPath(state: SimState, inst: SimInstance, base: string): string {
  const bin = memberBin(state, inst);
  return bin ? `${bin}:${base}` : base;
}
