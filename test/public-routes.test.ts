import { Controller, Get, Module } from '@nestjs/common';

import { Public } from '../apps/gateway/src/common/decorators/auth.decorators.js';
import { type Stack, api, json, startStack } from './support/stack.js';

/** A route marked @Public() where no list of public paths ever named it, beside an unmarked one. */
@Controller('probe')
class ProbeController {
  @Public()
  @Get('open')
  open(): { open: boolean } {
    return { open: true };
  }

  @Get('closed')
  closed(): { closed: boolean } {
    return { closed: true };
  }
}

/** The mark on a whole controller covers each of its routes. */
@Public()
@Controller('probe-all')
class PublicProbeController {
  @Get()
  ping(): { ping: boolean } {
    return { ping: true };
  }
}

@Module({ controllers: [ProbeController, PublicProbeController] })
class ProbeModule {}

describe('public routes: the route says so itself', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ modules: [ProbeModule] });
  });
  afterAll(() => stack.close());

  it('serves a route marked @Public() on its handler or its controller without a key', async () => {
    const open = await fetch(`${stack.url}/probe/open`);
    expect({ status: open.status, body: await json(open) }).toEqual({ status: 200, body: { open: true } });
    const all = await fetch(`${stack.url}/probe-all`);
    expect({ status: all.status, body: await json(all) }).toEqual({ status: 200, body: { ping: true } });
    // HEAD is refused only on routes that need a key.
    expect((await fetch(`${stack.url}/probe/open`, { method: 'HEAD' })).status).toBe(200);
  });

  it('keeps an unmarked route beside it behind the key', async () => {
    const refused = await fetch(`${stack.url}/probe/closed`);
    expect(refused.status).toBe(401);
    expect((await json(refused)).code).toBe('UNAUTHENTICATED');
    // HEAD on a route that needs a key is 405, as on every API route.
    expect((await fetch(`${stack.url}/probe/closed`, { method: 'HEAD' })).status).toBe(405);
    const admitted = await api(stack)('/probe/closed');
    expect({ status: admitted.status, body: await json(admitted) }).toEqual({ status: 200, body: { closed: true } });
  });

  it('keeps the documents, the console, health and metrics public, and nothing of swagger-ui-dist but what the page loads', async () => {
    for (const path of [
      '/docs',
      '/docs/json',
      '/docs/yaml',
      '/docs/swagger-ui-init.js',
      '/docs/swagger-ui.css',
      '/docs/ws',
      '/console',
      '/console/console.js',
      '/health/live',
      '/metrics',
    ]) {
      expect({ path, status: (await fetch(`${stack.url}${path}`)).status }).toEqual({ path, status: 200 });
    }
    const notServed = await fetch(`${stack.url}/docs/swagger-ui.js.map`);
    expect({ status: notServed.status, type: notServed.headers.get('content-type') }).toEqual({
      status: 404,
      type: expect.stringContaining('application/problem+json'),
    });
    expect((await fetch(`${stack.url}/me`)).status).toBe(401);
  });
});
