// Makes sure the system programs the tests use are installed before they start: a real
// redis-server (never a mock) and Chromium for the browser test. On a fresh Debian machine as root
// they are installed from Debian's packages; otherwise the run stops with the exact command.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

/** Debian installs PostgreSQL's server programs under /usr/lib/postgresql/<major>/bin, off the PATH. */
const hasPostgres = () =>
  existsSync('/usr/lib/postgresql') &&
  readdirSync('/usr/lib/postgresql').some((major) => existsSync(`/usr/lib/postgresql/${major}/bin/initdb`));

const NEEDS = [
  { program: 'redis-server', args: ['--version'], pkg: 'redis-server' }, // also Sentinel: redis-server --sentinel
  { program: 'redis-cli', args: ['--version'], pkg: 'redis-tools' }, // redis-cli --cluster create, for the Cluster of the test run
  { program: '/usr/bin/chromium', args: ['--version'], pkg: 'chromium' },
  { program: 'promtool', args: ['--version'], pkg: 'prometheus' }, // promtool, for the alert rule tests
  { check: hasPostgres, pkg: 'postgresql' }, // initdb, pg_ctl and postgres: a real server for the order journal tests
];

const present = ({ program, args, check }) =>
  check ? check() : spawnSync(program, args, { stdio: 'ignore' }).status === 0;
const missing = NEEDS.filter((need) => !present(need));
if (missing.length > 0) {
  const packages = missing.map((need) => need.pkg);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (isRoot && hasApt) {
    console.error(`Installing ${packages.join(' and ')} with apt-get (Debian packages)...`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
  }
  const still = NEEDS.filter((need) => !present(need));
  if (still.length > 0) {
    console.error(
      `The tests need ${still.map((n) => n.pkg).join(' and ')}. Install, then run npm test again:\n\n  sudo apt-get install -y ${still.map((n) => n.pkg).join(' ')}\n`,
    );
    process.exit(1);
  }
}
