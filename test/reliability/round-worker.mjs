// A tick in a worker thread, over the BUILT modules (dist/; `npm test` builds first): the fuzz
// suite's time limit can then stop a round even while it spins in synchronous code
// (`worker.terminate()` interrupts JavaScript; a timer in the same thread never would).
import { parentPort } from 'node:worker_threads';
import { tickCommand } from '../../dist/commands/tick.js';
import { silentLogger } from '../../dist/log.js';

parentPort.on('message', async ({ id, root, now }) => {
  const out = [];
  const spawner = { jobs: [], async start(job) { this.jobs.push(job); return { pid: 4242 }; } };
  try {
    const code = await tickCommand({ now, json: true }, { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(now) }, spawner);
    parentPort.postMessage({ id, code, out: out.join('') });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.stack ? error.stack : error) });
  }
});
