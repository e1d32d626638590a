// The ops console page: static HTML and one script, no build step and no library. It holds no data:
// everything it shows comes over the gateway's own /ws (topic ops.overview, scope admin), opened with
// a one-time ticket from the URL fragment (#ticket=…, never sent to the server in a request line) or
// from an admin key typed into the page (kept in memory only, used to fetch tickets). The risk panel is
// console-risk-page.ts: this script hands it each snapshot and the login key as DOM events.

import { CONSOLE_RISK_CSS, CONSOLE_RISK_HTML } from './console-risk-page.js';

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Gateway ops console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
</head>
<body>
<header>
  <h1>Gateway ops console</h1>
  <div id="status" class="muted">not connected</div>
</header>
<form id="login" hidden>
  <label>Admin API key <input id="key" type="password" autocomplete="off" size="60"></label>
  <button type="submit">Connect</button>
  <span class="muted">or open this page as /console#ticket=&lt;ticket from POST /ws/tickets&gt;</span>
</form>
<main id="main" hidden>
  <section class="cards">
    <div class="card"><h2>Instance</h2><div id="instance"></div><div class="muted">Redis mode <b id="mode"></b>, instances <b id="instances"></b></div><div class="muted" id="members"></div></div>
    <div class="card"><h2>Exchange token</h2><div>expires in <b id="tokenExpires"></b></div><div class="muted">age <span id="tokenAge"></span>, refreshes <span id="tokenRefreshes"></span>, failures <b id="tokenFailures"></b></div></div>
    <div class="card"><h2>Upstream streams</h2><div><b id="streams"></b> open here (firm: 20 in all)</div><div class="muted">market-data symbols <span id="symbols"></span></div><div class="muted" id="streamKinds"></div></div>
    <div class="card"><h2>Catalog cache</h2><div>hit ratio <b id="hitRatio"></b></div><div class="muted" id="cacheCounts"></div></div>
    <div class="card"><h2>Budget decisions/s</h2><svg id="spark" width="220" height="40" viewBox="0 0 220 40"><polyline id="sparkLine" fill="none" stroke-width="2" points=""></polyline></svg><div class="muted" id="decisionRate"></div></div>
  </section>
${CONSOLE_RISK_HTML}
  <h2>Upstream budget</h2>
  <table id="budget"><thead><tr><th>bucket</th><th>published</th><th>capacity</th><th>level</th><th>in use</th><th>teams (last minute allowed / denied)</th><th>refused here</th><th>429 from upstream</th><th>cool-down</th></tr></thead><tbody></tbody></table>
  <h2>Fan-out</h2>
  <table id="fanout"><thead><tr><th>clients</th><th>subscriptions by family</th><th>frames out/s</th><th>conflated/s</th><th>closed with 1013</th><th>mean lag</th></tr></thead><tbody><tr><td id="fClients"></td><td id="fSubs"></td><td id="fOut"></td><td id="fConflated"></td><td id="fDropped"></td><td id="fLag"></td></tr></tbody></table>
  <h2>Readiness</h2>
  <div id="readiness"></div>
</main>
<script src="/console/console-risk.js"></script>
<script src="/console/console.js"></script>
</body>
</html>
`;

export const CONSOLE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 24px 24px; color: #1d232a; background: #f6f7f9; }
header { display: flex; align-items: baseline; gap: 16px; }
h1 { font-size: 20px; } h2 { font-size: 15px; margin: 18px 0 6px; }
.muted { color: #5b6672; font-size: 12px; }
.cards { display: grid; grid-template-columns: repeat(5, minmax(180px, 1fr)); gap: 12px; }
.card { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 8px 12px; }
.card h2 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase; color: #5b6672; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border: 1px solid #dde1e6; padding: 4px 8px; text-align: left; font-variant-numeric: tabular-nums; }
th { background: #eef1f4; font-weight: 600; font-size: 12px; }
.bar { display: inline-block; width: 90px; height: 10px; background: #e3e7eb; vertical-align: middle; margin-right: 6px; }
.bar > span { display: block; height: 100%; background: #2f7de1; }
.bar.hot > span { background: #d9822b; } .bar.full > span { background: #c23030; }
.bad { color: #c23030; font-weight: 600; } .ok { color: #1f7a3a; }
#sparkLine { stroke: #2f7de1; }
${CONSOLE_RISK_CSS}`;

export const CONSOLE_JS = `'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const text = (id, value) => { $(id).textContent = value; };
  const sum = (samples, match) => (samples || []).filter((s) => Object.entries(match || {}).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
  const byLabel = (samples, label) => { const out = {}; for (const s of samples || []) { const key = String(s.labels[label]); out[key] = (out[key] || 0) + s.value; } return out; };
  const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
  let key = '';
  let previous;
  const rates = [];

  function status(message, bad) { const el = $('status'); el.textContent = message; el.className = bad ? 'bad' : 'muted'; }

  async function ticketFromKey() {
    const res = await fetch('/ws/tickets', { method: 'POST', headers: { authorization: 'Bearer ' + key } });
    if (!res.ok) throw new Error('ticket refused: ' + res.status);
    return (await res.json()).ticket;
  }

  function connect(ticket) {
    const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/ws?ticket=' + encodeURIComponent(ticket));
    ws.onopen = () => { status('connected'); ws.send(JSON.stringify({ type: 'subscribe', id: 'console', topics: ['ops.overview'] })); };
    ws.onmessage = (event) => {
      const frame = JSON.parse(event.data);
      if (frame.type === 'error') return status('error: ' + frame.code + ' ' + frame.message, true);
      if (frame.topic === 'ops.overview' && frame.data) render(frame.data);
    };
    ws.onclose = () => {
      if (!key) return status('disconnected: open the console with a new ticket', true);
      status('reconnecting…', true);
      setTimeout(() => ticketFromKey().then(connect, (e) => status(String(e), true)), 1000);
    };
  }

  function perSecond(now, before, span) { return before === undefined || span <= 0 ? NaN : Math.max(0, now - before) / span; }

  function render(s) {
    const m = s.metrics;
    $('main').hidden = false;
    document.dispatchEvent(new CustomEvent('ops-snapshot', { detail: s }));
    document.body.dataset.updated = String(s.at);
    text('instance', s.instance);
    text('mode', s.limits.mode + (s.limits.degraded ? ' (degraded)' : ''));
    $('mode').className = s.limits.degraded ? 'bad' : 'ok';
    text('instances', s.limits.instances);
    // Each instance's mode from the shared heartbeats (Redis mode only): redis = shared budget, local = its own share.
    $('members').replaceChildren(...(s.limits.members || []).map((member) => {
      const line = document.createElement('div');
      line.className = member.mode === 'redis' ? 'ok' : 'bad';
      line.textContent = member.id + ': ' + member.mode + ' (heard ' + fmt(member.heardMsAgo / 1000, 1) + ' s ago)';
      return line;
    }));
    text('tokenExpires', fmt(sum(m.gateway_exchange_token_expires_in_seconds)) + ' s');
    text('tokenAge', fmt(sum(m.gateway_exchange_token_age_seconds)) + ' s');
    text('tokenRefreshes', fmt(sum(m.gateway_exchange_token_refreshes_total)));
    const failures = sum(m.gateway_exchange_token_refresh_failures_total);
    text('tokenFailures', fmt(failures));
    $('tokenFailures').className = failures > 0 ? 'bad' : '';
    // Streams this instance holds open upstream, by kind; market-data symbols are counted cluster-wide.
    const open = m.gateway_exchange_grpc_streams_open || [];
    text('streams', fmt(sum(open)));
    text('symbols', fmt(sum(m.gateway_streams_in_use, { pool: 'exchange.symbols' })) + ' of ' + fmt(sum(m.gateway_streams_capacity, { pool: 'exchange.symbols' })));
    text('streamKinds', Object.entries(byLabel(open, 'kind')).map(([k, v]) => k + ' ' + v).join(', '));
    const cache = byLabel(m.catalog_cache_requests_total, 'result');
    const lookups = Object.values(cache).reduce((a, b) => a + b, 0);
    text('hitRatio', lookups ? fmt((100 * (cache.hit || 0)) / lookups, 1) + ' %' : '–');
    text('cacheCounts', Object.entries(cache).map(([k, v]) => k + ' ' + v).join(', '));

    const span = previous ? (s.at - previous.at) / 1000 : 0;
    const decisions = sum(m.ratelimit_decisions_total);
    const rate = perSecond(decisions, previous && sum(previous.metrics.ratelimit_decisions_total), span);
    if (Number.isFinite(rate)) rates.push(rate);
    while (rates.length > 60) rates.shift();
    const top = Math.max(1, ...rates);
    $('sparkLine').setAttribute('points', rates.map((r, i) => (i * 220) / 59 + ',' + (38 - (r / top) * 36)).join(' '));
    text('decisionRate', fmt(rate, 1) + ' /s now, ' + fmt(decisions) + ' in all');

    // Per bucket and scope key (a retail account for per-key buckets), as the limiter's view lists them.
    const rowKey = (bucket, scopeKey) => bucket + '|' + (scopeKey || '');
    const given = {};
    for (const sample of m.ratelimit_decisions_total || []) {
      if (sample.labels.outcome === 'allowed') continue;
      const k = rowKey(sample.labels.bucket, sample.labels.scope_key);
      given[k] = (given[k] || 0) + sample.value;
    }
    // The upstream-429 counter names the storage key, which holds the scope key of a per-key bucket.
    const received = (b) => (m.ratelimit_upstream_429_total || []).filter((s) => s.labels.bucket === b.bucket && (!b.scopeKey || String(s.labels.key).includes(b.scopeKey))).reduce((a, s) => a + s.value, 0);
    const body = $('budget').tBodies[0];
    body.replaceChildren(...s.limits.buckets.map((b) => {
      const used = b.capacity > 0 ? 1 - b.level / b.capacity : 0;
      const tr = document.createElement('tr');
      tr.dataset.bucket = b.bucket + (b.scopeKey ? '[' + b.scopeKey + ']' : '');
      const cells = [
        b.bucket + (b.scopeKey ? ' [' + b.scopeKey + ']' : ''),
        b.published + ' / ' + b.windowSeconds + ' s',
        fmt(b.capacity, 1),
        fmt(b.level, 1),
        null,
        (b.teams || []).map((t) => t.team + ' ' + t.lastMinute.allowed + '/' + t.lastMinute.denied).join(', '),
        fmt(given[rowKey(b.bucket, b.scopeKey)] || 0),
        fmt(received(b)),
        b.coolDownMs > 0 ? fmt(b.coolDownMs / 1000, 1) + ' s' : '',
      ];
      for (const value of cells) {
        const td = document.createElement('td');
        if (value === null) {
          td.className = 'use';
          const bar = document.createElement('span');
          bar.className = 'bar' + (used >= 0.9 ? ' full' : used >= 0.6 ? ' hot' : '');
          const fill = document.createElement('span');
          fill.style.width = Math.round(Math.min(1, Math.max(0, used)) * 100) + '%';
          bar.append(fill);
          td.append(bar, fmt(used * 100) + ' %');
        } else td.textContent = String(value);
        tr.append(td);
      }
      return tr;
    }));

    text('fClients', fmt(sum(m.gateway_fanout_clients)));
    text('fSubs', Object.entries(byLabel(m.gateway_fanout_subscriptions, 'family')).map(([k, v]) => k + ' ' + v).join(', ') || 'none');
    const out = sum(m.gateway_fanout_messages_out_total);
    const conflated = sum(m.gateway_fanout_conflated_frames_total);
    text('fOut', fmt(perSecond(out, previous && sum(previous.metrics.gateway_fanout_messages_out_total), span), 1));
    text('fConflated', fmt(perSecond(conflated, previous && sum(previous.metrics.gateway_fanout_conflated_frames_total), span), 1));
    text('fDropped', fmt(sum(m.gateway_fanout_dropped_clients_total)));
    const lagCount = sum(m.gateway_fanout_delivery_lag_seconds, { series: 'count' });
    text('fLag', lagCount ? fmt((1000 * sum(m.gateway_fanout_delivery_lag_seconds, { series: 'sum' })) / lagCount, 2) + ' ms' : '–');

    const levels = ['down', 'degraded', 'up'];
    $('readiness').replaceChildren(...(m.gateway_readiness || []).map((r) => {
      const span = document.createElement('span');
      span.className = r.value === 2 ? 'ok' : 'bad';
      span.textContent = r.labels.check + ': ' + levels[r.value] + '  ';
      return span;
    }));
    previous = s;
  }

  const ticket = new URLSearchParams(location.hash.slice(1)).get('ticket');
  history.replaceState(null, '', location.pathname); // a used ticket is worthless, but keep it out of history anyway
  if (ticket) connect(ticket);
  else {
    $('login').hidden = false;
    $('login').onsubmit = (event) => {
      event.preventDefault();
      key = $('key').value.trim();
      document.dispatchEvent(new CustomEvent('ops-key', { detail: key }));
      $('login').hidden = true;
      ticketFromKey().then(connect, (e) => { status(String(e), true); $('login').hidden = false; });
    };
  }
})();
`;
