// `npm run bench [name ...]`: runs every bench/<name>.bench.ts (or the named ones) one after another,
// each comparing against its own baseline measured in the same run, and writes bench/results/<name>.json.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(process.cwd(), 'bench', 'results');
const wanted = new Set(process.argv.slice(2));
const names = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .map((f) => f.replace(/\.bench\.js$/, ''))
  .filter((name) => wanted.size === 0 || wanted.has(name))
  .sort();

mkdirSync(resultsDir, { recursive: true });
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
};
let failed = 0;
for (const name of names) {
  process.stdout.write(`bench ${name}...\n`);
  const started = new Date().toISOString();
  try {
    const mod = (await import(pathToFileURL(join(here, `${name}.bench.js`)).href)) as {
      run: () => Promise<Record<string, unknown>>;
    };
    const results = await mod.run();
    const record = { name, started, finished: new Date().toISOString(), machine, results };
    writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } catch (error) {
    failed++;
    process.stderr.write(`bench ${name} failed: ${(error as Error).stack ?? String(error)}\n`);
  }
}
process.exit(failed ? 1 : 0);
