// Makes sure redis-server is on PATH before the tests start: the tests use a real one, never a mock.
import { execFileSync, spawnSync } from 'node:child_process';

const has = () => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
if (!has()) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (isRoot && hasApt) {
    console.error('redis-server is missing: installing it with apt-get (Debian package redis-server)...');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  if (!has()) {
    console.error('The tests need a real redis-server. Install it, then run npm test again:\n\n  sudo apt-get install -y redis-server\n');
    process.exit(1);
  }
}
