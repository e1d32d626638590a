// The ops console's risk panel: open orders against their limits and the trading states in force (from
// the ops.overview snapshot), the kill switch (POST /admin/risk/states, after a confirmation step, with
// a reason) and an order's timeline (GET /orders/timeline). Both calls need an admin key: the one typed
// at login, or one typed here (kept in memory only, never in the page's URL or storage).

export const CONSOLE_RISK_HTML = `
  <h2>Risk</h2>
  <section class="cards risk">
    <div class="card"><h2>Open orders against their limit</h2>
      <table id="openOrders"><thead><tr><th>scope</th><th>market</th><th>open</th><th>in use</th></tr></thead><tbody></tbody></table>
      <div class="muted" id="refusals"></div></div>
    <div class="card"><h2>Trading states in force</h2>
      <table id="states"><thead><tr><th>scope</th><th>state</th><th>by</th><th>since</th><th>reason</th></tr></thead><tbody></tbody></table>
      <div class="muted" id="noStates">every scope active</div></div>
  </section>
  <div id="actionKeyRow" class="muted"><label>Admin API key for actions <input id="actionKey" type="password" autocomplete="off" size="50"></label></div>
  <section class="cards risk">
    <form id="killForm" class="card"><h2>Kill switch</h2>
      <label>Scope <input id="killScope" list="killScopes" required placeholder="team:trading" size="22"></label><datalist id="killScopes"></datalist>
      <label>State <select id="killState"><option value="halted">halted</option><option value="halt-and-cancel">halt-and-cancel</option><option value="reduce-only">reduce-only</option><option value="active">active (lift)</option></select></label>
      <label>Reason <input id="killReason" required minlength="3" maxlength="500" size="30" placeholder="ticket, what happened"></label>
      <button type="submit" id="killApply">Apply…</button>
      <div id="killConfirm" class="confirm" hidden><span id="killQuestion"></span> <button type="button" id="killYes">Confirm</button> <button type="button" id="killNo">Cancel</button></div>
      <div id="killResult" class="muted"></div>
    </form>
    <form id="timelineForm" class="card"><h2>Order timeline</h2>
      <select id="timelineBy"><option value="clordId">clordId</option><option value="orderId">order id</option></select>
      <input id="timelineId" required size="30"> <button type="submit">Look up</button>
      <div id="timelineStatus" class="muted"></div>
      <table id="timeline"><thead><tr><th>seq</th><th>at</th><th>kind</th><th>detail</th></tr></thead><tbody></tbody></table>
    </form>
  </section>
`;

export const CONSOLE_RISK_CSS = `
.cards.risk { grid-template-columns: repeat(2, minmax(300px, 1fr)); margin-bottom: 12px; }
.risk form label { display: inline-block; margin: 2px 8px 2px 0; }
.confirm { margin-top: 6px; padding: 6px; background: #fdecec; border: 1px solid #c23030; border-radius: 4px; }
#timeline td:last-child { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
#actionKeyRow { margin: 6px 0; }
`;

export const CONSOLE_RISK_JS = `'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  let loginKey = '';
  document.addEventListener('ops-key', (event) => { loginKey = event.detail; $('actionKeyRow').hidden = Boolean(loginKey); });
  const adminKey = () => loginKey || $('actionKey').value.trim();
  const cell = (value, className) => { const td = document.createElement('td'); td.textContent = value === undefined ? '–' : String(value); if (className) td.className = className; return td; };
  const row = (data, cells) => { const tr = document.createElement('tr'); Object.assign(tr.dataset, data); tr.append(...cells); return tr; };

  document.addEventListener('ops-snapshot', (event) => {
    const s = event.detail;
    const risk = s.risk || { states: [], openOrders: [], teams: [] };
    $('openOrders').tBodies[0].replaceChildren(...risk.openOrders.map((count) => {
      const used = count.held === undefined || count.max === 0 ? NaN : count.held / count.max;
      const bar = document.createElement('td');
      bar.className = 'use';
      const outer = document.createElement('span');
      outer.className = 'bar' + (used >= 0.9 ? ' full' : used >= 0.6 ? ' hot' : '');
      const fill = document.createElement('span');
      fill.style.width = (Number.isFinite(used) ? Math.round(Math.min(1, used) * 100) : 0) + '%';
      outer.append(fill);
      bar.append(outer, Number.isFinite(used) ? Math.round(used * 100) + ' %' : 'unreadable');
      return row({ scope: count.scope, market: count.market || '' }, [cell(count.scope), cell(count.market || 'all'), cell((count.held === undefined ? '?' : count.held) + ' / ' + count.max, 'open'), bar]);
    }));
    const refusals = {};
    for (const sample of (s.metrics.gateway_risk_refusals_total || [])) refusals[sample.labels.code] = (refusals[sample.labels.code] || 0) + sample.value;
    $('refusals').textContent = 'refused here: ' + (Object.entries(refusals).map(([code, n]) => code + ' ' + n).join(', ') || 'none');
    $('states').tBodies[0].replaceChildren(...risk.states.map((state) => row({ scope: state.scope, state: state.state }, [cell(state.scope), cell(state.state, 'bad state'), cell(state.by), cell(state.at), cell(state.reason)])));
    $('noStates').hidden = risk.states.length > 0;
    $('killScopes').replaceChildren(...['firm', ...risk.teams.map((team) => 'team:' + team)].map((scope) => { const option = document.createElement('option'); option.value = scope; return option; }));
  });

  // The kill switch: Apply asks, Confirm sends. Nothing is sent before the confirmation.
  let pending;
  $('killForm').onsubmit = (event) => {
    event.preventDefault();
    pending = { scope: $('killScope').value.trim(), state: $('killState').value, reason: $('killReason').value.trim() };
    $('killQuestion').textContent = 'Set ' + pending.scope + ' to ' + pending.state + ' (' + pending.reason + ')?' + (pending.state === 'halt-and-cancel' ? ' Every resting order of the scope is cancelled.' : '');
    $('killConfirm').hidden = false;
    $('killResult').textContent = '';
  };
  $('killNo').onclick = () => { pending = undefined; $('killConfirm').hidden = true; $('killResult').textContent = 'not sent'; };
  $('killYes').onclick = async () => {
    if (!pending) return;
    const body = pending;
    pending = undefined;
    $('killConfirm').hidden = true;
    $('killResult').textContent = 'sending…';
    try {
      const res = await fetch('/admin/risk/states', { method: 'POST', headers: { authorization: 'Bearer ' + adminKey(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = await res.json();
      if (!res.ok) { $('killResult').textContent = 'refused: ' + res.status + ' ' + (answer.code || '') + ' ' + (answer.detail || ''); $('killResult').className = 'bad'; return; }
      const report = answer.report ? ', cancelled ' + answer.report.cancelled.length + ', filled first ' + answer.report.filledFirst.length + ', closed ' + answer.report.closed.length + ', unresolved ' + answer.report.unresolved.length : '';
      $('killResult').className = 'ok';
      $('killResult').textContent = answer.change.scope + ': ' + answer.change.from + ' → ' + answer.change.state + ' by ' + answer.change.by + report + (answer.journaled ? ' (journaled)' : ' (NOT journaled)');
    } catch (error) {
      $('killResult').className = 'bad';
      $('killResult').textContent = String(error);
    }
  };

  $('timelineForm').onsubmit = async (event) => {
    event.preventDefault();
    const by = $('timelineBy').value;
    const id = $('timelineId').value.trim();
    $('timeline').tBodies[0].replaceChildren();
    $('timelineStatus').textContent = 'looking up…';
    try {
      const res = await fetch('/orders/timeline?' + new URLSearchParams({ [by]: id }), { headers: { authorization: 'Bearer ' + adminKey() } });
      const answer = await res.json();
      if (!res.ok) { $('timelineStatus').textContent = res.status + ' ' + (answer.code || '') + ' ' + (answer.detail || ''); return; }
      $('timelineStatus').textContent = answer.records.length + ' record(s) for ' + by + ' ' + id;
      $('timeline').tBodies[0].replaceChildren(...answer.records.map((record) => {
        const detail = Object.assign({}, record.clordId ? { clordId: record.clordId } : {}, record.orderId ? { orderId: record.orderId } : {}, record.clientId ? { client: record.clientId } : {}, record.data || {});
        return row({ kind: record.kind }, [cell(record.seq), cell(record.at), cell(record.kind, 'kind'), cell(JSON.stringify(detail).slice(0, 400))]);
      }));
    } catch (error) {
      $('timelineStatus').textContent = String(error);
    }
  };
})();
`;
