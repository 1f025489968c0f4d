// Served mode (traceview -serve): loaded after the page's script, only
// in the served page. When the view changes it asks the server for the
// data of the visible window (GET /window?from=T0&to=T1&origin=O, ticks:
// the page's data for that window, the same JSON shape the static page
// embeds, its times counted from the page's origin O so that they are
// exact past 2^53 ticks; its timeline and mix made by the server from
// every event of the window, or, for a window of more events than the
// server's -budget, from the summary it built at start-up: the mix and
// the message lines at the summary's columns and only the slices of a
// column or longer, which the status and the toolbar say) and has the page draw it (window.traceview.redraw, see
// report.js, with the page's own data but the window's timeline and mix).
// The view is read with a margin on each side, so a small pan needs no
// request; a zoom inside what was read needs none either while what was
// read holds every slice, or is less than four times the view. The full
// view is the page's own data, made from every event of the trace: it
// needs no request.
//
// Where rows group locations, the page asks for the window's own mix of
// the locations of the expanded rows too (&members=LIST), and an expanded
// row's lines draw it, not the page's mix of the whole trace; expanding a
// row asks for the window anew unless what was read holds its locations
// or every slice.
//
// Its state is on #served: data-state is page (the page's own data),
// loading, ok (a window drawn) or error, data-from, data-to the window
// asked for, data-members the locations whose own mix it was asked for
// (ids and ranges), and data-summary 1 when the window drawn is the
// server's summary (data-column: the ticks of its columns), else 0.
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
  // The page's times count from P.origin (see report.js); the server is
  // asked for the trace's ticks and answers with offsets from the origin.
  const origin = BigInt(P.origin || '0');
  const abs = (t) => (origin + BigInt(t)).toString();
  const tps = page.ticks_per_second || 0;
  const dur = (ticks) => {
    if (!tps) return ticks + ' ticks';
    const s = ticks / tps;
    return s >= 1 ? s.toPrecision(3) + ' s' : s >= 1e-3 ? (s * 1e3).toPrecision(3) + ' ms' : s >= 1e-6 ? (s * 1e6).toPrecision(3) + ' µs' : (s * 1e9).toPrecision(3) + ' ns';
  };
  // The members of a window are its own mix of the expanded rows'
  // locations (none: their lines wait for it), with the page's names.
  const show = (tl, mix, note, win, members) => tv.redraw(Object.assign({}, P, { timeline: tl, mix: mix, span: full, note: note, window: win, served: true },
    P.members ? { members: { names: P.members.names, mix: members ? members.mix : null } } : {}));
  // memberList returns the locations of the expanded rows, as the
  // server's list (a-b,c-d), and the rows.
  const RS = page.row_size || 1, nLocs = P.locations || 0;
  const memberList = () => {
    if (RS <= 1 || !P.members || typeof tv.expanded !== 'function') return { list: '', rows: [] };
    const rows = tv.expanded();
    return { list: rows.map((r) => ((r - 1) * RS + 1) + '-' + Math.min(r * RS, nLocs)).join(','), rows };
  };
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
  // The group of a region new to the page is the window's word for it.
  P.region_groups = P.region_groups || [];
  const renumber = (d) => {
    const tl = d.timeline;
    const m = (tl.regions || []).map((r, i) => {
      const id = pageID(r);
      if (P.region_groups[id - 1] === undefined) P.region_groups[id - 1] = (d.region_groups || [])[i] ?? 0;
      return id;
    });
    // A mix's region -(g+1), the rest of group g, keeps its key.
    const id = (r) => r < 0 ? r : r > 0 && r <= m.length ? m[r - 1] : 0;
    for (const c of tl.cells || []) c.region = id(c.region);
    if (tl.detail) for (const s of tl.detail.slices || []) s.region = id(s.region);
    if (d.mix) for (const c of d.mix.cells || []) for (let k = 3; k + 1 < c.length; k += 2) c[k] = id(c[k]);
    if (d.members && d.members.mix) for (const c of d.members.mix.cells || []) for (let k = 3; k + 1 < c.length; k += 2) c[k] = id(c[k]);
    if (d.summary) {
      for (const s of d.summary.long || []) s.region = id(s.region);
      tl.long = d.summary.long || [];
      tl.long_min = d.summary.long_min;
    }
    tl.regions = page.regions;
    return tl;
  };
  const pageMix = P.mix;
  // A drawing while a mouse button is down (a drag in progress) would
  // end the drag: it waits for the button's release, after the page's own
  // handler has taken the drag's end.
  let down = false, held = null;
  window.addEventListener('mousedown', () => { down = true; }, true);
  window.addEventListener('mouseup', () => {
    down = false;
    if (held) { const f = held; held = null; f(); }
  });
  const later = (f) => { if (down) held = f; else f(); };

  let loaded = null; // { t0, t1, detail, rows }: the window read and drawn, the expanded rows whose members' mix it holds
  let timer = 0, ctl = null, seq = 0;
  const set = (state, t0, t1, text) => {
    status.dataset.state = state;
    if (t0 !== undefined) { status.dataset.from = Math.round(t0); status.dataset.to = Math.round(t1); }
    status.textContent = ' served: ' + text;
  };

  // covered reports whether what was read serves the view [t0, t1] and
  // the expanded rows.
  const covered = (t0, t1) => loaded && t0 >= loaded.t0 && t1 <= loaded.t1 &&
    (loaded.detail || ((t1 - t0) * 4 > loaded.t1 - loaded.t0 && memberList().rows.every((r) => loaded.rows.has(r))));
  const isFull = (t0, t1) => t0 <= full.t0 && t1 >= full.t1;

  function request(t0, t1) {
    const span = t1 - t0;
    const a = Math.floor(Math.max(full.t0, t0 - span / 4)), b = Math.ceil(Math.min(full.t1 + 1, t1 + span / 4));
    if (ctl) ctl.abort();
    ctl = new AbortController();
    const my = ++seq;
    const mem = memberList();
    set('loading', a, b, 'reading…');
    fetch('window?from=' + abs(a) + '&to=' + abs(Math.max(b, a + 1)) + '&origin=' + origin + (mem.list ? '&members=' + mem.list : ''), { signal: ctl.signal })
      .then((r) => r.ok ? r.json() : r.text().then((t) => { throw new Error(t); }))
      .then((d) => {
        if (my !== seq) return;
        const ms = (d.took * 1000).toFixed(0) + ' ms';
        later(() => {
          if (my !== seq) return;
          const tl = renumber(d);
          loaded = { t0: a, t1: b, detail: !!tl.detail, rows: new Set(mem.rows) };
          const sum = d.summary;
          status.dataset.summary = sum ? 1 : 0;
          status.dataset.members = mem.list;
          if (sum) {
            const col = d.mix ? d.mix.col_width : tl.col_width;
            status.dataset.column = col;
            set('ok', a, b, 'summary: the window holds up to ' + d.events + ' events, more than the ' + sum.budget +
              ' read in full, so it is drawn from the summary built at start-up, at columns of ' + dur(col) + ' (' + sum.buckets +
              ' buckets of ' + dur(sum.bucket) + '): the mix of regions, the message lines and the ' + (sum.long || []).length + ' slices of ' + dur(sum.long_min) +
              ' or longer, not the shorter slices; zoom in for every slice' + (d.members_read ? '; the expanded rows\' lines read in full' : '') + ' (answered in ' + ms + ')');
            show(tl, d.mix, 'served summary at columns of ' + dur(col) + ', not every slice', true, d.members);
          } else {
            delete status.dataset.column;
            set('ok', a, b, d.events + ' events read in ' + ms + (d.past ? ', and ' + d.past + ' past the window for its messages\' other ends' : ''));
            show(tl, d.mix, 'served window', true, d.members);
          }
        });
      })
      .catch((e) => {
        if (e.name === 'AbortError') return;
        set('error', a, b, 'error: ' + e.message);
      });
  }

  // pageView shows the page's own data: the whole trace.
  function pageView() {
    clearTimeout(timer);
    if (ctl) ctl.abort();
    seq++;
    status.dataset.summary = 0;
    status.dataset.members = '';
    set('page', full.t0, full.t1, 'the whole trace, from the page\'s own data');
    if (loaded) {
      loaded = null;
      show(page, pageMix, '', P.window, P.members);
    }
  }

  tv.onview = (t0, t1) => {
    if (isFull(t0, t1)) return pageView();
    if (covered(t0, t1)) return;
    clearTimeout(timer);
    timer = setTimeout(() => request(t0, t1), 120);
  };
  tv.onexpand = () => {
    const v = tv.view();
    if (v) tv.onview(v.t0, v.t1);
  };
  const v = tv.view();
  if (v && !isFull(v.t0, v.t1)) request(v.t0, v.t1);
  else pageView();
})();
