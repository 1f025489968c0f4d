// Served mode (traceview -serve): loaded after the page's script, only
// in the served page. When the view changes it asks the server for the
// data of the visible window (GET /window?from=T0&to=T1, ticks: the
// page's data for that window, the same JSON shape the static page
// embeds) and has the page draw it (window.traceview.redraw, see report.js,
// with the page's own data but the window's timeline). The view is read with a margin on each side, so a small
// pan needs no request; a zoom inside what was read needs none either.
// For a window of more events than the server reads (-maxread) it
// answers with its aggregate of the whole trace (finer than the page's)
// over the window.
//
// Its state is on #served: data-state is loading, ok (a window drawn),
// wide (the server's aggregate) or error, and data-from, data-to the window
// read.
'use strict';
(function () {
  const tv = window.traceview;
  if (!tv) return;
  // The status lives outside #report, which every redraw rebuilds.
  const status = document.createElement('span');
  status.id = 'served';
  status.className = 'served';
  document.body.insertBefore(status, document.body.firstChild);
  const P = JSON.parse(document.getElementById('data').textContent);
  const page = P.timeline;
  const full = { t0: page.start, t1: Math.max(page.end, page.start + 1) };
  // The page's times count from P.origin (see report.js), the server's
  // are the trace's ticks.
  const origin = BigInt(P.origin || '0');
  const abs = (t) => (origin + BigInt(t)).toString();
  const rebase = (tl) => {
    if (origin === 0n) return tl;
    const o = (t) => Number(BigInt(Math.round(t)) - origin);
    tl.start = o(tl.start);
    tl.end = o(tl.end);
    for (const s of (tl.detail && tl.detail.slices) || []) { s.start = o(s.start); s.end = o(s.end); }
    for (const m of (tl.detail && tl.detail.messages) || []) { m.send = o(m.send); m.recv = o(m.recv); }
    return tl;
  };
  const show = (tl, note) => tv.redraw(Object.assign({}, P, { timeline: tl, span: full, note: note }));
  // Region ids: the window's data numbers its own regions; they become
  // the page's, by name and kind, new ones appended to the page's list.
  const ids = new Map();
  (page.regions || []).forEach((r, i) => ids.set(r.kind + '\u0000' + r.name, i + 1));
  const pageID = (r) => {
    const k = r.kind + '\u0000' + r.name;
    if (!ids.has(k)) {
      page.regions = page.regions || [];
      page.regions.push(r);
      ids.set(k, page.regions.length);
    }
    return ids.get(k);
  };
  const renumber = (tl) => {
    const m = (tl.regions || []).map(pageID);
    const id = (r) => r > 0 && r <= m.length ? m[r - 1] : 0;
    for (const c of tl.cells || []) c.region = id(c.region);
    if (tl.detail) for (const s of tl.detail.slices || []) s.region = id(s.region);
    tl.regions = page.regions;
    return tl;
  };

  let loaded = null; // { t0, t1, detail, wide }
  let timer = 0, ctl = null, seq = 0;
  const set = (state, t0, t1, text) => {
    status.dataset.state = state;
    if (t0 !== undefined) { status.dataset.from = Math.round(t0); status.dataset.to = Math.round(t1); }
    status.textContent = ' served: ' + text;
  };

  // covered reports whether what was read serves the view [t0, t1].
  const covered = (t0, t1) => loaded && t0 >= loaded.t0 && t1 <= loaded.t1 &&
    (loaded.detail || (t1 - t0) * 4 > loaded.t1 - loaded.t0);

  function request(t0, t1) {
    const span = t1 - t0;
    const a = Math.floor(Math.max(full.t0, t0 - span / 4)), b = Math.ceil(Math.min(full.t1 + 1, t1 + span / 4));
    if (ctl) ctl.abort();
    ctl = new AbortController();
    const my = ++seq;
    set('loading', a, b, 'reading…');
    fetch('window?from=' + abs(a) + '&to=' + abs(Math.max(b, a + 1)), { signal: ctl.signal })
      .then((r) => r.ok ? r.json() : r.text().then((t) => { throw new Error(t); }))
      .then((d) => {
        if (my !== seq) return;
        const ms = (d.took * 1000).toFixed(0) + ' ms';
        if (d.wide) {
          // Too many events to read: the server's aggregate of the
          // whole trace, finer than the page's.
          loaded = { t0: a, t1: b, detail: false, wide: true };
          set('wide', a, b, 'the window holds about ' + d.read + ' events, more than one request reads: the whole trace\'s aggregate at ' +
            d.timeline.columns + ' columns here; zoom in for the window\'s own data');
          show(rebase(renumber(d.timeline)), 'zoom in for the window\'s own data');
          return;
        }
        const tl = rebase(renumber(d.timeline));
        loaded = { t0: a, t1: b, detail: !!tl.detail, wide: false };
        set('ok', a, b, d.events + ' events read in ' + ms);
        show(tl, 'served window');
      })
      .catch((e) => {
        if (e.name === 'AbortError') return;
        set('error', a, b, 'error: ' + e.message);
      });
  }

  tv.onview = (t0, t1) => {
    if (covered(t0, t1)) return;
    clearTimeout(timer);
    timer = setTimeout(() => request(t0, t1), 120);
  };
  const v = tv.view();
  if (v) request(v.t0, v.t1);
})();
