// Instance-list rows: what one refresh of N instances costs against the live service's paged list
// (the simulator's `today` era): requests (target ceil(N/25), never more) and response bytes with
// the list columns only (select_cols) and with every column. Prints one JSON line.
import { startSim } from '../test/kit/sim';
import { createApiClient } from '../src/api/client';
import { request as realRequest, close as closeTransport, type Transport } from '../src/api/transport';

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const SIZES = [0, 10, 200, 1000];

async function main(): Promise<void> {
  const rows: Array<Record<string, number>> = [];
  for (const n of SIZES) {
    const sim = await startSim({ era: 'today', offers: Math.max(300, Math.ceil(n * 1.4)), instances: n });
    try {
      let bytes = 0;
      let requests = 0;
      const counting: Transport = {
        request: async (req) => {
          const res = await realRequest(req);
          requests++;
          bytes += Buffer.byteLength(res.text, 'utf8');
          return res;
        },
      };
      // Pacing off: the simulator does not limit here, and the figure is requests and bytes, not time.
      const api = createApiClient({ baseUrl: sim.url, credentials: { token: () => 'sim-api-key' }, log: silent, transport: counting, pacing: 'off' });
      await api.listInstances(); // learns that this server speaks v1
      const measure = async (columns: 'list' | 'all') => {
        bytes = 0;
        requests = 0;
        const before = sim.state.requests.length;
        const list = await api.listInstances({ columns });
        const onWire = sim.state.requests.slice(before).filter((r) => r.path === '/api/v1/instances/').length;
        if (list.instances.length !== sim.state.instances.size) throw new Error(`listed ${list.instances.length} of ${sim.state.instances.size}`);
        return { requests, onWire, bytes, count: list.instances.length };
      };
      const trimmed = await measure('list');
      const full = await measure('all');
      rows.push({
        instances: trimmed.count,
        requests: trimmed.onWire,
        target: Math.max(1, Math.ceil(trimmed.count / 25)),
        bytesTrimmed: trimmed.bytes,
        bytesFull: full.bytes,
        requestsFull: full.onWire,
      });
    } finally {
      await sim.close();
    }
  }
  await closeTransport();
  process.stdout.write(`${JSON.stringify({ sizes: rows })}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
