// The report page's script: it draws the data of the element #data (see
// pageData in main.go) into #report, then marks the body with
// data-rendered="ok". Errors are written into #errors.
//
// Stable interface for pages that bring their own data (traceview -serve):
//
//   traceview.redraw(data)   draws the whole page anew from data, an
//                            object of the shape of #data (pageData in
//                            main.go), keeping the visible window where
//                            data's span covers it. Returns nothing;
//                            errors go to #errors.
//   traceview.view()         the visible window, {t0, t1} in ticks from
//                            data.origin.
//   data.origin              the tick every time of data counts from, a
//                            decimal string (times past 2^53 ticks are
//                            not exact as numbers); "0" unless the
//                            trace's times pass 2^52 ticks.
//   data.span, data.note     optional: {t0, t1}, the extent the view may
//                            take when data.timeline holds only a window
//                            of it; a note for the toolbar.
//   data.served              optional: true when a server reads the
//                            windows the view shows (traceview -serve).
//   data.timeline.long,      optional, with the mix: slices of at least
//   data.timeline.long_min   long_min ticks (every one of the window),
//                            outlined over the mix (a served summary's).
//   traceview.onview         null, or a function (t0, t1) called after
//                            every change of the visible window (zoom,
//                            pan, reset, #view=T0,T1), so that a server
//                            can fetch the detail of that window and
//                            call redraw with it.
//   traceview.expanded()     the grouped rows expanded into their
//                            locations, in order (row numbers).
//   traceview.onexpand       null, or a function called after a row is
//                            expanded or collapsed, so that a server can
//                            fetch the window's mix of its locations
//                            (data.members.mix) and call redraw with it.
//   traceview.summary()      the summary timeline drawn: {by (group or
//                            region), how (slices or mix), t0, t1, origin,
//                            bins: [{t0, t1, counts: {name: locations}}]}.
//
// What the page shows of a time (axis labels, tooltips, #view links) is
// written exactly from data.origin with BigInt. Where locations share
// rows (data.timeline.row_size > 1), a click on a row's label expands it
// into a line per location (collapses it again): every slice of a
// location where the page draws every slice, else its own mix
// (data.members). Under the timeline, the summary timeline counts, per
// column of the visible window, the locations in each group or region.
//
// The timeline draws, per row and screen column, the mix of regions
// (stacked shares of the column's time) wherever the page does not draw
// every slice, and every slice where it does; regions are coloured by
// their group (D.groups, D.region_groups), each region a shade of its
// group's hue. A mix cell's region -(g+1) is the rest of group g (the
// group's regions past the cell's few kept exactly): it is named "other
// G regions" and drawn in a pale shade of group g's hue, so that a
// column's share of a group is exact at every zoom; region 0, "other
// regions", is grey. Slices cut by a -from/-to window's edges are drawn to the
// edge and marked (class "clip").
'use strict';
(function () {
  const errors = document.getElementById('errors');
  const fail = (msg) => { errors.textContent += msg + '\n'; };
  window.addEventListener('error', (e) => fail('error: ' + e.message + ' (line ' + e.lineno + ')'));

  const SVG = 'http://www.w3.org/2000/svg';
  const el = (tag, attrs, parent, text) => {
    const e = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  };

  // Hues of the groups of known kinds; the trace's own groups take the
  // others in turn.
  const KIND_HUE = { mpi: 0, application: 125, openmp: 215, io: 42, threads: 285, accelerator: 320, measurement: 30 };
  const SPARE_HUES = [175, 255, 60, 340, 95, 195, 15, 300, 150, 230];

  // state of the page drawn last: the window-wide listeners reach it here.
  let cur = null;
  // The grouped rows expanded into their locations, kept across redraws
  // of the same rows; and the summary timeline's choice.
  let expanded = new Set(), expandedKey = '', summaryBy = 'group';
  const api = { onview: null, onexpand: null };
  api.expanded = () => [...expanded].sort((a, b) => a - b);
  api.view = () => cur ? { t0: cur.view.t0, t1: cur.view.t1 } : null;
  api.summary = () => cur ? cur.summary() : null;
  api.redraw = (data) => {
    const keep = cur ? { t0: cur.view.t0, t1: cur.view.t1 } : null;
    try {
      errors.textContent = '';
      draw(data, keep);
      document.body.setAttribute('data-rendered', 'ok');
    } catch (e) {
      fail('error: ' + (e && e.stack ? e.stack : e));
    }
  };
  window.traceview = api;
  window.addEventListener('mouseup', () => { if (cur) cur.mouseup(); });
  window.addEventListener('hashchange', () => { if (cur) cur.hash(location.hash); });
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (cur) cur.render(); }, 150);
  });

  // niceStep returns the round step (1, 2 or 5 times a power of ten)
  // that cuts span into about n parts.
  const niceStep = (span, n) => {
    const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw * 0.999) return { m: m === 10 ? 1 : m, e: m === 10 ? Math.round(Math.log10(p)) + 1 : Math.round(Math.log10(p)) };
    return { m: 1, e: Math.round(Math.log10(p)) + 1 };
  };

  function draw(D, keep) {
    const TL = D.timeline;
    const tps = TL.ticks_per_second || 0;
    const root = document.getElementById('report');
    root.textContent = '';
    const oldTip = document.getElementById('tip');
    if (oldTip) oldTip.remove();
    const locName = (id) => (TL.locations || [])[id - 1] || ('loc ' + id);
    const regName = (id) => id === 0 ? 'other regions' : id < 0 ? 'other ' + (groups[-id - 1] || { name: 'group ' + (-id - 1) }).name + ' regions' :
      ((TL.regions || [])[id - 1] || { name: 'region ' + id }).name;
    // Groups and colours.
    const groups = D.groups && D.groups.length ? D.groups : [{ name: 'regions', kind: 'application' }];
    const regionGroups = D.region_groups || [];
    // A mix's region -(g+1) is the rest of group g.
    const groupOf = (id) => id === 0 ? -1 : id < 0 ? -id - 1 : (regionGroups[id - 1] ?? 0);
    const hues = [];
    {
      const taken = new Set();
      let spare = 0;
      groups.forEach((g, i) => {
        let h = KIND_HUE[g.kind];
        if (h === undefined || taken.has(h)) h = SPARE_HUES[spare++ % SPARE_HUES.length];
        taken.add(h);
        hues[i] = h;
      });
    }
    const shade = new Map(); // region id -> its index among its group's regions
    {
      const count = [];
      for (let id = 1; id <= (TL.regions || []).length; id++) {
        const g = groupOf(id);
        count[g] = (count[g] || 0) + 1;
        shade.set(id, count[g] - 1);
      }
    }
    const colorCache = new Map();
    const color = (id) => {
      if (id === 0) return '#b8b8b8';
      let c = colorCache.get(id);
      if (c) return c;
      const k = shade.get(id) || 0, g = groupOf(id);
      const kind = (groups[g] || {}).kind;
      if (id < 0) {
        // A group's rest: a pale shade of its hue, apart from its regions'.
        c = 'hsl(' + (hues[g] ?? 0) + ',' + (kind === 'measurement' ? 10 : 35) + '%,84%)';
        colorCache.set(id, c);
        return c;
      }
      const sat = kind === 'measurement' ? 10 : 72 - (Math.floor(k / 6) % 3) * 16;
      c = 'hsl(' + hues[g] + ',' + sat + '%,' + (40 + (k % 6) * 7) + '%)';
      colorCache.set(id, c);
      return c;
    };
    // A group's rest is drawn hatched over its pale shade (the lightest
    // shade of a region is near it): stripes of a darker shade of its
    // hue, a pattern of the plot's (hatchOf: its fill), and in the legend
    // a striped swatch (swatch: its CSS background).
    const stripe = (id) => 'hsl(' + (hues[groupOf(id)] ?? 0) + ',' + ((groups[groupOf(id)] || {}).kind === 'measurement' ? 10 : 60) + '%,45%)';
    const hatchOf = (plot, id) => {
      const pid = 'hatch' + (-id);
      if (!plot.querySelector('#' + pid)) {
        let defs = plot.querySelector('defs');
        if (!defs) defs = el('svg:defs', {}, plot);
        const pat = el('svg:pattern', { id: pid, patternUnits: 'userSpaceOnUse', width: 6, height: 6, patternTransform: 'rotate(45)' }, defs);
        el('svg:rect', { x: 0, y: 0, width: 2, height: 6, fill: stripe(id) }, pat);
      }
      return 'url(#' + pid + ')';
    };
    const swatch = (id) => id < 0 ? 'repeating-linear-gradient(45deg,' + stripe(id) + ' 0 2px,' + color(id) + ' 2px 5px)' : color(id);
    // Times: absolute on the trace's clock.
    // unitOf returns the unit of a time of sec seconds: its size, name
    // and k, the unit being 10^-k seconds.
    const unitOf = (sec) => sec >= 1 ? [1, 's', 0] : sec >= 1e-3 ? [1e-3, 'ms', 3] : sec >= 1e-6 ? [1e-6, 'µs', 6] : [1e-9, 'ns', 9];
    // Every time of D counts from D.origin (ticks, a decimal string): the
    // page's numbers are doubles, exact to 2^53, while a trace's ticks may
    // pass it. What the page shows of a time is written exactly, with
    // BigInt, from the origin and the time.
    const ORIGIN = BigInt(D.origin || '0');
    const TPS = BigInt(Math.round(tps));
    const absT = (t) => ORIGIN + BigInt(Math.round(t));
    // decimal writes n / 10^dec with dec decimals (n a BigInt).
    const decimal = (n, dec) => {
      const neg = n < 0n, s = (neg ? -n : n).toString().padStart(dec + 1, '0');
      return (neg ? '-' : '') + (dec > 0 ? s.slice(0, s.length - dec) + '.' + s.slice(s.length - dec) : s);
    };
    // divRound returns a / b rounded to the nearest integer, halves away
    // from zero (BigInts, b > 0).
    const divRound = (a, b) => a < 0n ? -((-a * 2n + b) / (2n * b)) : (a * 2n + b) / (2n * b);
    const fmtT = (ticks) => {
      if (!tps) return Math.round(ticks) + ' ticks';
      const s = ticks / tps, a = Math.abs(s);
      if (a === 0) return '0 s';
      const [u, n] = unitOf(a);
      return (s / u).toPrecision(4) + ' ' + n;
    };
    // An absolute time, in the unit of the trace's span, to a thousandth
    // of that unit (whole ticks at most).
    const spanUnit = unitOf(Math.max((TL.end - TL.start) / (tps || 1), 1e-9));
    const fmtAbs = (ticks) => {
      if (!tps) return absT(ticks) + ' ticks';
      const dec = Math.max(0, Math.min(3, Math.ceil(Math.log10(tps * spanUnit[0]))));
      return decimal(divRound(absT(ticks) * 10n ** BigInt(spanUnit[2] + dec), TPS), dec) + ' ' + spanUnit[1];
    };
    const fmtB = (b) => b >= 1 << 30 ? (b / (1 << 30)).toFixed(1) + ' GiB' : b >= 1 << 20 ? (b / (1 << 20)).toFixed(1) + ' MiB' : b >= 1024 ? (b / 1024).toFixed(1) + ' KiB' : b + ' B';

    el('h1', {}, root, 'hpctrace report: ' + D.name);
    el('div', { class: 'meta' }, root, D.events + ' events, ' + (D.locations ?? (TL.locations || []).length) + ' locations' +
      (TL.row_size > 1 ? ' (' + TL.row_size + ' to a timeline row)' : '') + ', ' + (D.regions ?? (TL.regions || []).length) +
      ' regions, clock ' + D.clock + '; ' + (D.window ? 'the chosen window, ' : '') + fmtT(TL.end - TL.start) +
      ' from ' + fmtAbs(TL.start) + ' to ' + fmtAbs(TL.end) + ' (times are on the trace\'s clock' +
      (TL.end - TL.start > 2 ** 53 ? '; a span past 2^53 ticks, to within ' + 2 ** Math.ceil(Math.log2(TL.end - TL.start) - 53) + ' ticks' : '') + ')');

    // Timeline.
    el('h2', {}, root, 'Timeline');
    const bar = el('div', { class: 'toolbar' }, root);
    const bIn = el('button', { type: 'button', id: 'zoom-in' }, bar, 'zoom in');
    const bOut = el('button', { type: 'button', id: 'zoom-out' }, bar, 'zoom out');
    const bReset = el('button', { type: 'button', id: 'zoom-reset' }, bar, 'reset');
    const mode = el('span', { id: 'mode' }, bar);
    const rows = (TL.locations || []).length;
    const rowH = Math.max(14, Math.min(40, Math.floor(360 / Math.max(rows, 1)))), labelW = 130, axisH = 22, trackH = 24;
    const wrap = el('div', { class: 'tl-wrap', id: 'timeline-panel' }, root);
    const widthNow = () => Math.max(600, (wrap.clientWidth || root.clientWidth || 1200) - 2);
    let W = widthNow(), plotW = W - labelW - 10;
    // Lines of the timeline: its rows (locations, or with row_size > 1
    // groups of that many consecutive locations), each group followed,
    // once expanded (a click on its label), by a line per location of it.
    // The detail's slices and messages, and the counter tracks, are on
    // locations: on their own lines where expanded, else their row's.
    const grouped = TL.row_size > 1, RS = TL.row_size || 1;
    const MB = grouped ? D.members || null : null;
    const nLocs = D.locations ?? rows * RS;
    const rowOfLoc = (l) => grouped ? 1 + Math.floor((l - 1) / RS) : l;
    const membersOf = (r) => { const out = []; for (let l = (r - 1) * RS + 1; l <= Math.min(r * RS, nLocs); l++) out.push(l); return out; };
    const locLabel = (l) => grouped ? ((MB && MB.names[l - 1]) || 'location ' + l) : locName(l);
    if (expandedKey !== rows + ' ' + RS + ' ' + nLocs) { expanded = new Set(); expandedKey = rows + ' ' + RS + ' ' + nLocs; }
    const tracks = D.counters || [];
    const tracksOf = new Map();
    tracks.forEach((c, i) => { if (!tracksOf.has(c.loc_id)) tracksOf.set(c.loc_id, []); tracksOf.get(c.loc_id).push(i); });
    let rowTop = [], locTop = [], trackTop = [], lines = [], H = 0;
    function layout() {
      rowTop = []; locTop = []; trackTop = []; lines = [];
      let y = axisH;
      const under = (l) => { for (const i of tracksOf.get(l) || []) { trackTop[i] = y; y += trackH; } };
      for (let r = 1; r <= rows; r++) {
        rowTop[r] = y;
        lines.push({ y, row: r });
        y += rowH;
        if (!grouped) under(r);
        else if (expanded.has(r)) {
          for (const l of membersOf(r)) {
            locTop[l] = y;
            lines.push({ y, row: r, loc: l });
            y += rowH;
            under(l);
          }
        }
      }
      H = y + 4;
    }
    layout();
    const WS = D.wait;
    const svg = el('svg:svg', { id: 'timeline', width: W, height: H }, wrap);
    // The summary timeline (Vampir's): under the timeline, on its time
    // axis, for each column of the visible window the number of
    // locations in each group (or region), stacked.
    const sumPanel = el('div', { id: 'summary-panel' }, root);
    const sumHead = el('div', { class: 'toolbar' }, sumPanel);
    el('b', {}, sumHead, 'Summary timeline');
    const sumBy = el('select', { id: 'summary-by' }, sumHead);
    for (const [v, t] of [['group', 'locations per group'], ['region', 'locations per region']]) el('option', { value: v }, sumBy, t);
    sumBy.value = summaryBy;
    const sumNote = el('span', { id: 'summary-note' }, sumHead);
    const SH = 110, SBIN = 3;
    const sumSvg = el('svg:svg', { id: 'summary', width: W, height: SH + 6 }, sumPanel);
    let summary = null;
    const legend = el('div', { class: 'legend', id: 'legend' }, root);
    const tip = el('div', { id: 'tip' }, document.body);
    // D.span, when set (served mode), is the whole trace's extent while
    // TL holds a window of it, so that the view can leave the window.
    const full = D.span ? { t0: D.span.t0, t1: D.span.t1 } : { t0: TL.start, t1: Math.max(TL.end, TL.start + 1) };
    const view = { t0: full.t0, t1: full.t1 };
    if (keep && keep.t1 > full.t0 && keep.t0 < full.t1) { view.t0 = Math.max(keep.t0, full.t0); view.t1 = Math.min(keep.t1, full.t1); }
    const detail = TL.detail;
    const slices = detail ? (detail.slices || []).slice().sort((a, b) => a.depth - b.depth) : [];
    const msgs = detail ? detail.messages || [] : [];
    const X = (t) => labelW + (t - view.t0) / (view.t1 - view.t0) * plotW;
    const rowY = (r) => rowTop[r] === undefined ? axisH + (r - 1) * rowH : rowTop[r];
    const locY = (l) => grouped ? (locTop[l] !== undefined ? locTop[l] : rowY(rowOfLoc(l))) : rowY(l);
    const lineAt = (y) => lines.find((ln) => y >= ln.y && y < ln.y + rowH) || null;
    // The mix, by row, and the members' by location.
    const MX = D.mix;
    const mixRows = [], memberRuns = [];
    if (MX) for (const c of MX.cells || []) (mixRows[c[0]] || (mixRows[c[0]] = [])).push(c);
    if (MB && MB.mix) for (const c of MB.mix.cells || []) (memberRuns[c[0]] || (memberRuns[c[0]] = [])).push(c);
    let memberBins = [];
    const BIN = 2; // pixels per column of the drawn mix
    let items = [], mixBins = [], binTicks = 1, stats = null;

    // mixOf returns, per row, the bins of the visible window: maps of
    // region to its share (0..1) of the bin's time over the row's
    // locations; and the total ticks per region over all rows.
    function mixOf() {
      const nb = Math.ceil(plotW / BIN), bt = (view.t1 - view.t0) / plotW * BIN, out = [], total = new Map();
      for (let r = 1; r <= rows; r++) {
        if (mixRows[r]) out[r] = binsOf(MX, mixRows[r], (MX.row_locs || [])[r - 1] || 1, nb, bt, total);
      }
      binTicks = bt;
      return { bins: out, total };
    }

    // binsOf returns the bins of the visible window (nb of bt ticks) of
    // one row's runs of mix M, adding to total each region's ticks times
    // the row's locs.
    function binsOf(M, runs, locs, nb, bt, total) {
      const bins = new Array(nb);
      for (const c of runs) {
        const a0 = M.start + c[1] * M.col_width, b0 = a0 + c[2] * M.col_width;
        const a = Math.max(a0, view.t0), b = Math.min(b0, view.t1);
        if (b <= a) continue;
        const i0 = Math.floor((a - view.t0) / bt), i1 = Math.min(nb - 1, Math.ceil((b - view.t0) / bt) - 1);
        for (let i = i0; i <= i1; i++) {
          const lo = Math.max(a, view.t0 + i * bt), hi = Math.min(b, view.t0 + (i + 1) * bt);
          if (hi <= lo) continue;
          const m = bins[i] || (bins[i] = new Map());
          for (let k = 3; k + 1 < c.length; k += 2) {
            const v = c[k + 1] / 1000 * (hi - lo);
            m.set(c[k], (m.get(c[k]) || 0) + v / bt);
            total.set(c[k], (total.get(c[k]) || 0) + v * locs);
          }
        }
      }
      return bins;
    }

    // Stacking order: by group, then region.
    const stackOrder = (a, b) => (groupOf(a) - groupOf(b)) || (a - b);

    // heights returns the heights of the shares m of ids in a row of
    // height h, in half pixels; a region of any time gets one pixel at
    // least (taken from the tallest), so that no region of the column
    // vanishes.
    function heights(ids, m, h) {
      const hs = ids.map((id) => { const v = Math.min(1, m.get(id)) * h; return v <= 0 ? 0 : Math.max(1, Math.round(v * 2) / 2); });
      let over = hs.reduce((a, b) => a + b, 0) - h;
      while (over > 0) {
        let k = 0;
        hs.forEach((v, i) => { if (v > hs[k]) k = i; });
        if (hs[k] <= 1) break;
        const d = Math.min(over, hs[k] - 1);
        hs[k] -= d; over -= d;
      }
      return hs;
    }

    // stack adds to paths (region -> path) the stacked shares of the bins
    // rb of the line at y; it returns the bars.
    function stack(paths, rb, y0, used) {
      let n = 0;
      const h = rowH - 4;
      let i = 0;
      while (i < rb.length) {
        const m = rb[i];
        if (!m) { i++; continue; }
        const ids = [...m.keys()].sort(stackOrder);
        const hs = heights(ids, m, h);
        // Merge the bins that stack alike.
        let j = i + 1;
        while (j < rb.length && rb[j] && rb[j].size === m.size && ids.every((id) => rb[j].has(id))) {
          const hj = heights(ids, rb[j], h);
          if (!hj.every((v, k) => v === hs[k])) break;
          j++;
        }
        let y = y0 + 2 + h;
        const x = labelW + i * BIN, w = (j - i) * BIN;
        ids.forEach((id, k) => {
          if (hs[k] <= 0) return;
          y -= hs[k];
          paths.set(id, (paths.get(id) || '') + 'M' + x + ' ' + y.toFixed(1) + 'h' + w + 'v' + hs[k] + 'h' + (-w) + 'z');
          used.add(id);
          n++;
        });
        i = j;
      }
      return n;
    }

    // The mix of every row, and of the locations of the expanded rows
    // (from D.members, at its own columns), one path per region and line.
    function drawMix(plot, used) {
      const { bins, total } = mixOf();
      mixBins = bins;
      memberBins = [];
      const paths = new Map();
      let n = 0;
      for (let r = 1; r <= rows; r++) if (bins[r]) n += stack(paths, bins[r], rowY(r), used);
      const emit = (paths, loc) => {
        for (const id of [...paths.keys()].sort(stackOrder)) {
          const p = el('svg:path', { class: 'bar mix' + (loc ? ' member' : ''), d: paths.get(id), fill: color(id), 'data-mix': 1 }, plot);
          p.dataset.region = regName(id);
          p.dataset.rid = id;
          p.dataset.group = (groups[groupOf(id)] || { name: 'other regions' }).name;
          if (loc) p.dataset.locId = loc;
          if (id < 0) {
            // The rest's hatch, over its shade.
            const h = el('svg:path', { class: 'mixhatch', d: paths.get(id), fill: hatchOf(plot, id), 'pointer-events': 'none' }, plot);
            h.dataset.rid = id;
            if (loc) h.dataset.locId = loc;
          }
        }
      };
      emit(paths, 0);
      if (MB && MB.mix) {
        const nb = Math.ceil(plotW / BIN), bt = (view.t1 - view.t0) / plotW * BIN;
        for (const r of expanded) {
          for (const l of membersOf(r)) {
            if (!memberRuns[l]) continue;
            memberBins[l] = binsOf(MB.mix, memberRuns[l], 1, nb, bt, new Map());
            const lp = new Map();
            n += stack(lp, memberBins[l], locTop[l], used);
            emit(lp, l);
          }
        }
      }
      return { n, total };
    }

    function drawAxis() {
      const span = view.t1 - view.t0;
      const labels = []; // [time, label, the exact absolute tick]
      // A view narrower than its times are exact as doubles allows (times
      // past 2^53 ticks from the origin) gets no ticks.
      if (!(span > 0) || span < Math.max(Math.abs(view.t0), Math.abs(view.t1)) * 4e-16 * 16) return 0;
      const maxTicks = Math.max(2, Math.floor(plotW / 110));
      // Ticks at k * N / 10^dd ticks of the trace's clock (BigInts), k
      // from the first at or after the view's start: labels and places
      // exact whatever the ticks' size.
      let N, dd = 0, label;
      if (tps) {
        const st = niceStep(span / tps, maxTicks); // seconds = m * 10^e
        const [, un, uk] = unitOf(st.m * Math.pow(10, st.e));
        // k * m * 10^e seconds is k * m * 10^(e + uk) units: digits.
        const p = st.e + uk, m = BigInt(st.m);
        label = (k) => (p >= 0 ? decimal(k * m * 10n ** BigInt(p), 0) : decimal(k * m, -p)) + ' ' + un;
        N = m * TPS * 10n ** BigInt(Math.max(0, st.e));
        dd = Math.max(0, -st.e);
      } else {
        const st = niceStep(span, maxTicks);
        N = BigInt(Math.max(1, Math.round(st.m * Math.pow(10, st.e))));
        label = (k) => (k * N).toString();
      }
      if (N <= 0n) return 0;
      const Dn = 10n ** BigInt(dd);
      const a = ORIGIN * Dn + BigInt(Math.floor(view.t0 * Number(Dn)));
      for (let k = a >= 0n ? (a + N - 1n) / N : -(-a / N); labels.length <= 3 * maxTicks; k++) {
        const t = Number(k * N - ORIGIN * Dn) / Number(Dn);
        if (t > view.t1) break;
        if (t < view.t0) continue;
        labels.push([t, label(k), dd ? decimal(k * N, dd).replace(/\.?0+$/, '') : (k * N).toString()]);
      }
      for (const [t, text, exact] of labels) {
        const x = X(t);
        el('svg:line', { x1: x, x2: x, y1: axisH - 4, y2: H, stroke: '#e4e4e4' }, svg);
        el('svg:text', { class: 'axis tick', x: x, y: 13, 'text-anchor': x > W - 40 ? 'end' : 'middle', 'data-t': exact }, svg, text);
      }
      el('svg:text', { class: 'axis unit', x: 4, y: 13 }, svg, tps ? 'time' : 'ticks');
      return labels.length;
    }

    function render() {
      W = widthNow(); plotW = W - labelW - 10;
      layout();
      svg.setAttribute('width', W);
      svg.setAttribute('height', H);
      svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      items = [];
      mixBins = [];
      const used = new Set();
      for (const ln of lines) {
        const r = ln.row, member = ln.loc !== undefined;
        const g = el('svg:g', member ? { class: 'row member', 'data-loc-id': ln.loc } : grouped ?
          { class: 'row group', 'data-row': r, 'data-expanded': expanded.has(r) ? 1 : 0 } : { class: 'row', 'data-loc-id': r }, svg);
        el('svg:rect', { x: 0, y: ln.y, width: W, height: rowH, fill: member ? (ln.loc % 2 ? '#f1f5fa' : '#f8fafd') : r % 2 ? '#fafafa' : '#fff' }, g);
        el('svg:text', { class: 'label' + (grouped && !member ? ' toggle' : ''), x: member ? 14 : 4, y: ln.y + rowH / 2 + 4 }, g,
          member ? locLabel(ln.loc) : grouped ? (expanded.has(r) ? '\u25be ' : '\u25b8 ') + locName(r) : locName(r));
      }
      const nticks = drawAxis();
      tracks.forEach((c, i) => {
        if (trackTop[i] === undefined) return;
        const g = el('svg:g', { class: 'ctrack', 'data-loc-id': c.loc_id }, svg);
        el('svg:rect', { x: 0, y: trackTop[i], width: W, height: trackH, fill: '#f4f7fb' }, g);
        el('svg:text', { class: 'label ctr-label', x: 14, y: trackTop[i] + trackH / 2 + 4 }, g, c.counter);
      });
      const plot = el('svg:svg', { x: labelW, y: 0, width: plotW, height: H, viewBox: labelW + ' 0 ' + plotW + ' ' + H }, svg);
      let nbars = 0, nmsgs = 0, nclip = 0, nlong = 0;
      let visible = 0;
      if (detail) for (const s of slices) if (!(s.end < view.t0 || s.start > view.t1)) visible++;
      // Every slice where they are few enough to see, or the page holds no mix.
      const exact = detail && (!MX || visible <= Math.max(2000, plotW * 2));
      stats = { exact, total: null };
      if (exact) {
        mode.textContent = 'every slice and message (' + visible + ' of ' + slices.length + ' slices in view, ' + msgs.length + ' messages)';
        for (const s of slices) {
          if (s.end < view.t0 || s.start > view.t1) continue;
          const x = X(s.start), w = Math.max(X(s.end) - x, 0.6), inset = Math.min(s.depth * 4, rowH / 2 - 2);
          const y = locY(s.loc_id) + 2 + inset, h = rowH - 4 - inset;
          const r = el('svg:rect', { class: 'bar' + (s.coll ? ' coll' : ''), x: x, y: y, width: w,
            height: h, fill: color(s.region), 'data-i': items.length, 'data-loc-id': s.loc_id }, plot);
          r.dataset.region = regName(s.region);
          r.dataset.group = groups[groupOf(s.region)].name;
          const cl = D.window && s.start <= TL.start, cr = D.window && s.end >= TL.end;
          if (cl) { el('svg:path', { class: 'clip clip-l', d: 'M' + X(TL.start) + ' ' + y + 'l4 ' + h / 4 + 'l-4 ' + h / 4 + 'l4 ' + h / 4 + 'l-4 ' + h / 4 + 'z' }, plot); nclip++; }
          if (cr) { el('svg:path', { class: 'clip clip-r', d: 'M' + X(TL.end) + ' ' + y + 'l-4 ' + h / 4 + 'l4 ' + h / 4 + 'l-4 ' + h / 4 + 'l4 ' + h / 4 + 'z' }, plot); nclip++; }
          items.push(() => regName(s.region) + (s.coll ? ' (collective' + (s.comm ? ' on ' + s.comm : '') + ')' : '') + '\n' +
            locLabel(s.loc_id) + '\n' + fmtAbs(s.start) + (cl ? ' (or before: entered before the window)' : '') + ' to ' + fmtAbs(s.end) +
            (cr ? ' (or after: still open at the window\'s end)' : '') + ' (' + fmtT(s.end - s.start) + ')');
          used.add(s.region);
          nbars++;
        }
        for (const m of msgs) {
          if (Math.max(m.send, m.recv) < view.t0 || Math.min(m.send, m.recv) > view.t1) continue;
          el('svg:line', { class: 'msg', x1: X(m.send), y1: locY(m.from_id) + rowH / 2, x2: X(m.recv), y2: locY(m.to_id) + rowH / 2,
            'stroke-width': 1.5, 'data-i': items.length }, plot);
          items.push(() => 'message ' + locLabel(m.from_id) + ' → ' + locLabel(m.to_id) + ', ' + fmtB(m.bytes) + ', tag ' + m.tag + '\nsent ' +
            fmtAbs(m.send) + ', received ' + fmtAbs(m.recv) + ' (' + fmtT(m.recv - m.send) + ')');
          nmsgs++;
        }
      } else if (MX) {
        mode.textContent = 'mix of regions per ' + BIN + ' px (' + fmtT(binTicks * 0 + (view.t1 - view.t0) / plotW * BIN) + '): stacked shares of time' +
          (detail ? '; zoom in for every slice' : D.served ? '; zoom in for every slice (the server reads a narrower window in full)' : '; run with -from and -to for every slice of a window');
        const r = drawMix(plot, used);
        nbars = r.n;
        stats.total = r.total;
        // A served summary's long slices (TL.long: every slice of the
        // window at least TL.long_min ticks long), outlined over the mix.
        for (const s of TL.long || []) {
          if (s.end < view.t0 || s.start > view.t1) continue;
          const x = X(s.start), w = Math.max(X(s.end) - x, 0.6), inset = Math.min(s.depth * 4, rowH / 2 - 2);
          const y = locY(s.loc_id) + 1 + inset, h = rowH - 2 - inset;
          const e = el('svg:rect', { class: 'long', x: x, y: y, width: w, height: h, fill: 'none', stroke: color(s.region), 'stroke-width': 1.5,
            'data-i': items.length, 'data-loc-id': s.loc_id }, plot);
          e.dataset.region = regName(s.region);
          items.push(() => regName(s.region) + (s.coll ? ' (collective)' : '') + ' (a slice of ' + fmtT(TL.long_min) + ' or longer, from the server\'s summary)\n' +
            locLabel(s.loc_id) + '\n' + fmtAbs(s.start) + ' to ' + fmtAbs(s.end) + ' (' + fmtT(s.end - s.start) + ')');
          used.add(s.region);
          nlong++;
        }
        if (TL.long) mode.textContent += '; outlined: the ' + nlong + ' slices of ' + fmtT(TL.long_min) + ' or longer in view';
      } else {
        mode.textContent = 'aggregated to ' + TL.columns + ' columns of ' + fmtT(TL.col_width) + ' (dominant region per column)';
        const cw = TL.col_width;
        for (const c of TL.cells || []) {
          const a = TL.start + c.col * cw, b = a + c.span * cw;
          if (b < view.t0 || a > view.t1 || c.region === 0) continue;
          const x = X(a);
          const coll = ((TL.regions || [])[c.region - 1] || {}).kind === 'collective';
          el('svg:rect', { class: 'bar cell' + (coll ? ' coll' : ''), x: x, y: rowY(c.loc_id) + 2, width: Math.max(X(b) - x, 0.6), height: rowH - 4,
            fill: color(c.region), 'data-i': items.length }, plot).dataset.region = regName(c.region);
          items.push(() => regName(c.region) + ' (dominant)\n' + locName(c.loc_id) + '\n' + fmtAbs(a) + ' to ' + fmtAbs(b) + '\n' + c.msgs + ' messages sent');
          used.add(c.region);
          nbars++;
        }
      }
      if (!exact) {
        // Many bundles would hide the bars: the more there are, the
        // fainter each line.
        const cw = TL.col_width;
        const op = Math.max(0.04, Math.min(0.6, 40 / Math.max((TL.bundles || []).length, 1))).toFixed(3);
        for (const m of TL.bundles || []) {
          const ts = TL.start + (m.from_col + 0.5) * cw, tr = TL.start + (m.to_col + 0.5) * cw;
          if (Math.max(ts, tr) < view.t0 || Math.min(ts, tr) > view.t1) continue;
          el('svg:line', { class: 'msg', x1: X(ts), y1: rowY(m.from_id) + rowH / 2, x2: X(tr), y2: rowY(m.to_id) + rowH / 2,
            'stroke-width': 1 + Math.log2(m.count) / 3, style: 'stroke-opacity:' + op, 'data-i': items.length }, plot);
          items.push(() => m.count + ' messages ' + locName(m.from_id) + ' → ' + locName(m.to_id) + ', ' + fmtB(m.bytes) +
            '\nsent near ' + fmtAbs(ts) + ', received near ' + fmtAbs(tr));
          nmsgs++;
        }
      }
      const nwaits = WS ? drawWaits(plot) : 0;
      const ncrit = WS ? drawCritical(plot) : 0;
      const nctr = drawCounters(plot);
      svg.dataset.rows = rows;
      svg.dataset.bars = nbars;
      svg.dataset.msgs = nmsgs;
      svg.dataset.waits = nwaits;
      svg.dataset.crit = ncrit;
      svg.dataset.counters = nctr;
      svg.dataset.clips = nclip;
      svg.dataset.long = nlong;
      svg.dataset.ticks = nticks;
      svg.dataset.mode = exact ? 'detail' : MX ? 'mix' : 'dominant';
      if (D.note) mode.textContent += '; ' + D.note;
      svg.dataset.view0 = absT(view.t0).toString();
      svg.dataset.view1 = absT(view.t1).toString();
      drawLegend(used);
      updatePanels();
      drawSummary();
    }

    function drawLegend(used) {
      legend.textContent = '';
      const byGroup = new Map();
      for (const id of used) { const g = groupOf(id); if (!byGroup.has(g)) byGroup.set(g, []); byGroup.get(g).push(id); }
      for (const g of [...byGroup.keys()].sort((a, b) => a - b)) {
        const box = el('div', { class: 'lgroup' }, legend);
        el('b', {}, box, g < 0 ? 'other' : groups[g].name);
        // The group's regions, then its rest ("other G regions").
        for (const id of byGroup.get(g).sort((a, b) => ((a < 0) - (b < 0)) || a - b)) {
          const s = el('span', { class: 'lreg' }, box);
          el('i', { style: 'background:' + swatch(id) }, s);
          s.appendChild(document.createTextNode(regName(id)));
        }
      }
      if (WS) {
        const s = el('span', {}, legend);
        el('i', { class: 'wait-key' }, s);
        s.appendChild(document.createTextNode('waiting in an MPI call (wait state)'));
        const c = el('span', {}, legend);
        el('i', { class: 'crit-key' }, c);
        c.appendChild(document.createTextNode('critical path' + (WS.critical.coarse ? ' (per column)' : '')));
      }
      if (D.window) {
        const s = el('span', {}, legend);
        el('i', { class: 'clip-key' }, s);
        s.appendChild(document.createTextNode('cut by the window\'s edge'));
      }
      const seen = new Set();
      for (const c of tracks) {
        const key = c.counter + '\u0000' + (c.unit || '');
        if (seen.has(key)) continue;
        seen.add(key);
        const s = el('span', { class: 'ctr-key' }, legend);
        el('i', { class: 'line-key' }, s);
        s.appendChild(document.createTextNode(c.counter + (c.unit ? ' [' + c.unit + ']' : '') +
          (c.accumulating ? ', a running total' : ', a reading') + (c.float ? ', floating point' : '')));
      }
    }

    // The waiting part of each MPI call: every wait in detail, or the
    // share of each column spent waiting.
    function drawWaits(plot) {
      let n = 0;
      if (WS.waits) {
        for (const w of WS.waits) {
          if (w.end < view.t0 || w.start > view.t1) continue;
          const x = X(w.start);
          el('svg:rect', { class: 'wait', x: x, y: rowY(w.loc_id) + 1, width: Math.max(X(w.end) - x, 0.8), height: rowH - 2, 'data-i': items.length }, plot);
          items.push(() => WS.patterns[w.pat] + ': waited ' + fmtT(w.end - w.start) + ' in ' + w.region + '\n' + locName(w.loc_id) +
            (w.delayer_id ? ', for ' + locName(w.delayer_id) : '') + '\n' + fmtAbs(w.start) + ' to ' + fmtAbs(w.end));
          n++;
        }
        return n;
      }
      const cw = TL.col_width;
      for (const c of WS.cells || []) {
        const a = TL.start + c.col * cw, b = a + cw;
        if (b < view.t0 || a > view.t1) continue;
        const x = X(a);
        el('svg:rect', { class: 'wait', x: x, y: rowY(c.loc_id) + 1, width: Math.max(X(b) - x, 0.8), height: rowH - 2,
          style: 'fill-opacity:' + (0.15 + 0.6 * Math.min(1, c.time / cw)).toFixed(2), 'data-i': items.length }, plot);
        items.push(() => 'waited ' + fmtT(c.time) + ' of ' + fmtT(cw) + ' in MPI calls\n' + locName(c.loc_id) + '\n' + fmtAbs(a) + ' to ' + fmtAbs(b));
        n++;
      }
      return n;
    }

    // The critical path: a thick line along the bottom of the rows it
    // runs on, and a dashed hop where it passes to another location (not
    // when merged per column, where hops would hide the rows).
    function drawCritical(plot) {
      let n = 0, prev = null;
      for (const s of WS.critical.segments || []) {
        if (!WS.critical.coarse && prev && prev.loc_id !== s.loc_id && Math.max(prev.end, s.start) >= view.t0 && Math.min(prev.end, s.start) <= view.t1) {
          el('svg:line', { class: 'crit-hop', x1: X(prev.end), y1: rowY(prev.loc_id) + rowH - 2, x2: X(s.start), y2: rowY(s.loc_id) + rowH - 2 }, plot);
        }
        prev = s;
        if (s.end < view.t0 || s.start > view.t1) continue;
        const y = rowY(s.loc_id) + rowH - 2;
        el('svg:line', { class: 'crit', x1: X(s.start), y1: y, x2: Math.max(X(s.end), X(s.start) + 1), y2: y, 'data-i': items.length }, plot);
        items.push(() => 'critical path on ' + locName(s.loc_id) + '\n' + fmtAbs(s.start) + ' to ' + fmtAbs(s.end) + ' (' + fmtT(s.end - s.start) + ')');
        n++;
      }
      return n;
    }

    // Counter tracks: a step line of each track's samples, exact where the
    // page holds them, otherwise per bucket (first, min, max, last).
    function drawCounters(plot) {
      let n = 0;
      tracks.forEach((c, i) => {
        if (trackTop[i] === undefined) return;
        const top = trackTop[i] + 3, h = trackH - 6;
        const span = c.max - c.min;
        const Y = (v) => top + h - (span > 0 ? (v - c.min) / span * h : h / 2);
        const xEnd = X(Math.min(view.t1, TL.end));
        let d = '';
        if (c.points && c.points.length) {
          let k = 0;
          while (k + 1 < c.points.length && c.points[k + 1][0] <= view.t0) k++;
          for (let j = k; j < c.points.length && c.points[j][0] <= view.t1; j++) {
            const p = c.points[j], x = Math.max(X(p[0]), labelW);
            d += (d ? 'L' + x.toFixed(1) + ' ' + Y(c.points[j - 1 >= k ? j - 1 : j][1]).toFixed(1) : 'M' + x.toFixed(1) + ' ' + Y(p[1]).toFixed(1)) +
              'L' + x.toFixed(1) + ' ' + Y(p[1]).toFixed(1);
            if (j + 1 === c.points.length || c.points[j + 1][0] > view.t1) d += 'L' + xEnd.toFixed(1) + ' ' + Y(p[1]).toFixed(1);
          }
        } else {
          let last = null;
          for (const b of c.buckets || []) {
            const a = c.start + b[0] * c.width, e = a + c.width;
            if (e < view.t0 || a > view.t1) { if (a <= view.t0) last = b; continue; }
            const x0 = Math.max(X(a), labelW).toFixed(1), x1 = Math.min(X(e), xEnd).toFixed(1);
            d += (d ? 'L' : 'M') + x0 + ' ' + Y(last && !d ? last[4] : b[1]).toFixed(1) + 'L' + x0 + ' ' + Y(b[1]).toFixed(1) +
              'L' + x0 + ' ' + Y(b[3]).toFixed(1) + 'L' + x0 + ' ' + Y(b[2]).toFixed(1) + 'L' + x0 + ' ' + Y(b[4]).toFixed(1) +
              'L' + x1 + ' ' + Y(b[4]).toFixed(1);
            last = b;
          }
        }
        if (!d) return;
        el('svg:path', { class: 'ctr', d: d, 'data-i': items.length }, plot).dataset.counter = c.counter;
        items.push(() => c.counter + (c.unit ? ' [' + c.unit + ']' : '') + ' on ' + locLabel(c.loc_id) + '\n' + c.samples + ' samples' +
          (c.points ? '' : ' (drawn per bucket of ' + fmtT(c.width) + ')') + ', min ' + c.min.toPrecision(6) + ', max ' + c.max.toPrecision(6) +
          ', mean ' + c.mean.toPrecision(6) + (c.non_finite ? '\n' + c.non_finite + ' samples NaN or infinite, not drawn' : ''));
        n++;
      });
      return n;
    }

    const changed = () => {
      render();
      if (typeof api.onview === 'function') api.onview(view.t0, view.t1);
    };
    const zoom = (f, at) => {
      const c = at === undefined ? (view.t0 + view.t1) / 2 : at;
      let t0 = c - (c - view.t0) * f, t1 = c + (view.t1 - c) * f;
      if (t1 - t0 < 1 || t1 - t0 < Math.abs(t1) * 1e-14) return; // no finer than the page's times are exact
      view.t0 = Math.max(t0, full.t0); view.t1 = Math.min(t1, full.t1);
      changed();
    };
    bIn.onclick = () => zoom(0.5);
    bOut.onclick = () => zoom(2);
    bReset.onclick = () => { view.t0 = full.t0; view.t1 = full.t1; changed(); };
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, view.t0 + (e.clientX - r.left - labelW) / plotW * (view.t1 - view.t0));
    }, { passive: false });
    let drag = null, dragged = false;
    // A click on a grouped row's label expands it into its locations, or
    // collapses it.
    svg.addEventListener('click', (e) => {
      if (!grouped || dragged) return;
      const r = svg.getBoundingClientRect();
      if (e.clientX - r.left >= labelW) return;
      const ln = lineAt(e.clientY - r.top);
      if (!ln || ln.loc !== undefined) return;
      if (expanded.has(ln.row)) expanded.delete(ln.row);
      else expanded.add(ln.row);
      fillProcess();
      render();
      if (typeof api.onexpand === 'function') api.onexpand();
    });
    svg.addEventListener('mousedown', (e) => { dragged = false; drag = { x: e.clientX, t0: view.t0, t1: view.t1, moved: false }; svg.style.cursor = 'grabbing'; });
    svg.addEventListener('mousemove', (e) => {
      if (drag) {
        let dt = -(e.clientX - drag.x) / plotW * (drag.t1 - drag.t0);
        dt = Math.max(full.t0 - drag.t0, Math.min(full.t1 - drag.t1, dt));
        view.t0 = drag.t0 + dt; view.t1 = drag.t1 + dt;
        drag.moved = true;
        render();
        return;
      }
      let text = null;
      const i = e.target.getAttribute && e.target.getAttribute('data-i');
      if (i !== null && i !== undefined) text = items[+i]();
      else if (e.target.getAttribute && e.target.getAttribute('data-mix')) {
        const r = svg.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
        const ln = lineAt(y), bin = Math.floor((x - labelW) / BIN);
        const m = !ln ? null : ln.loc !== undefined ? (memberBins[ln.loc] || [])[bin] : (mixBins[ln.row] || [])[bin];
        if (m) {
          const t = view.t0 + bin * binTicks;
          text = (ln.loc !== undefined ? locLabel(ln.loc) : locName(ln.row)) + ', ' + fmtAbs(t) + ' to ' + fmtAbs(t + binTicks) + '\n' +
            [...m].sort((a, b) => b[1] - a[1]).map(([id, v]) => (v * 100).toFixed(1) + ' %  ' + regName(id)).join('\n');
        }
      }
      if (text === null) { tip.style.display = 'none'; return; }
      tip.textContent = text;
      tip.style.display = 'block';
      tip.style.left = Math.min(e.clientX + 12, window.innerWidth - 320) + 'px';
      tip.style.top = (e.clientY + 12) + 'px';
    });
    svg.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
    // A link can open the page zoomed, or zoom it: #view=T0,T1 (ticks).
    const applyHash = (h) => {
      const hv = /^#view=(-?\d+),(-?\d+)$/.exec(h);
      if (!hv || BigInt(hv[2]) <= BigInt(hv[1])) return false;
      view.t0 = Math.max(Number(BigInt(hv[1]) - ORIGIN), full.t0); view.t1 = Math.min(Number(BigInt(hv[2]) - ORIGIN), full.t1);
      if (view.t1 <= view.t0) { view.t0 = full.t0; view.t1 = full.t1; }
      return true;
    };
    if (!keep) applyHash(location.hash);

    // Panels of the visible window, redrawn with the timeline.
    const vgrid = el('div', { class: 'grid', id: 'window-panels' }, root);
    const panel = (title, id) => { const d = el('div', { class: 'panel', id: id }, vgrid); el('h2', {}, d, title); return el('div', { class: 'body' }, d); };
    const profBody = panel('Time profile (time per region per interval, visible window)', 'time-profile');
    const sumBody = panel('Function summary (exclusive time, visible window)', 'function-summary');
    const msgBody = panel('Message statistics (visible window)', 'message-stats');
    const procPanel = panel('Process timeline (call-stack depth)', 'process-timeline');
    const procSel = el('select', { id: 'process-select' }, procPanel);
    // The locations to choose from: every row's, or with grouped rows
    // those of the expanded rows.
    function fillProcess() {
      const was = procSel.value;
      procSel.textContent = '';
      const ids = grouped ? [...expanded].sort((a, b) => a - b).flatMap(membersOf) : Array.from({ length: rows }, (_, i) => i + 1);
      for (const l of ids) el('option', { value: l }, procSel, locLabel(l));
      if (ids.includes(+was)) procSel.value = was;
    }
    fillProcess();
    const procBody = el('div', {}, procPanel);
    procSel.onchange = () => updatePanels();
    // Parents of the slices, for exclusive times: the slice of one less
    // depth open around each, on its row.
    const parent = new Map();
    if (detail) {
      const byRow = new Map();
      for (const s of slices) { if (!byRow.has(s.loc_id)) byRow.set(s.loc_id, []); byRow.get(s.loc_id).push(s); }
      for (const list of byRow.values()) {
        list.sort((a, b) => (a.start - b.start) || (a.depth - b.depth));
        const st = [];
        for (const s of list) {
          while (st.length && (st[st.length - 1].end <= s.start || st[st.length - 1].depth >= s.depth)) st.pop();
          if (st.length) parent.set(s, st[st.length - 1]);
          st.push(s);
        }
      }
    }
    const clipT = (a, b) => Math.max(0, Math.min(b, view.t1) - Math.max(a, view.t0));

    // summaryOf counts, per column of SBIN pixels of the visible window,
    // the locations in each region (the innermost open one): exactly from
    // every slice where the timeline draws them, else from the mix (the
    // share of each region times the row's locations). A count is the
    // mean over the column, so a location in a region for half of it
    // counts one half.
    function summaryOf() {
      const nb = Math.max(1, Math.floor(plotW / SBIN)), bt = (view.t1 - view.t0) / nb;
      const acc = new Array(nb);
      const add = (r, a, b, f) => {
        a = Math.max(a, view.t0); b = Math.min(b, view.t1);
        if (b <= a) return;
        const i0 = Math.max(0, Math.floor((a - view.t0) / bt)), i1 = Math.min(nb - 1, Math.ceil((b - view.t0) / bt) - 1);
        for (let i = i0; i <= i1; i++) {
          const d = Math.min(b, view.t0 + (i + 1) * bt) - Math.max(a, view.t0 + i * bt);
          if (d <= 0) continue;
          const m = acc[i] || (acc[i] = new Map());
          m.set(r, (m.get(r) || 0) + d * f);
        }
      };
      let how = 'none';
      if (stats.exact) {
        how = 'slices';
        for (const s of slices) {
          if (s.end < view.t0 || s.start > view.t1) continue;
          add(s.region, s.start, s.end, 1);
          const p = parent.get(s);
          if (p) add(p.region, s.start, s.end, -1);
        }
      } else if (MX) {
        how = 'mix';
        // A share is of the whole column, whose end may pass the trace's:
        // the time of the last column is all before the trace's end.
        const end = D.span ? D.span.t1 : TL.end, cw = MX.col_width;
        for (let r = 1; r <= rows; r++) {
          const locs = (MX.row_locs || [])[r - 1] || 1;
          for (const c of mixRows[r] || []) {
            const a0 = MX.start + c[1] * cw, b0 = a0 + c[2] * cw, last = b0 - cw;
            for (let k = 3; k + 1 < c.length; k += 2) {
              const f = c[k + 1] / 1000 * locs;
              if (b0 <= end) add(c[k], a0, b0, f);
              else if (last < end) { add(c[k], a0, last, f); add(c[k], last, end, f * cw / (end - last)); }
              else add(c[k], a0, end, f);
            }
          }
        }
      }
      const by = sumBy.value;
      const keyOf = (id) => by === 'region' ? id : groupOf(id);
      const nameOf = (k) => by === 'region' ? regName(k) : k < 0 ? 'other regions' : groups[k].name;
      const bins = [];
      for (let i = 0; i < nb; i++) {
        const counts = new Map();
        for (const [id, v] of acc[i] || []) {
          const n = v / bt;
          if (n > 1e-9) counts.set(keyOf(id), (counts.get(keyOf(id)) || 0) + n);
        }
        bins.push(counts);
      }
      return { by, how, nb, bt, bins, nameOf };
    }

    function drawSummary() {
      summaryBy = sumBy.value;
      const S = summaryOf();
      summary = S;
      sumSvg.setAttribute('width', W);
      while (sumSvg.firstChild) sumSvg.removeChild(sumSvg.firstChild);
      let top = 0;
      for (const m of S.bins) top = Math.max(top, [...m.values()].reduce((a, b) => a + b, 0));
      top = Math.max(top, nLocs, 1);
      const keyOrder = (a, b) => S.by === 'region' ? stackOrder(a, b) : a - b;
      const fill = (k) => S.by === 'region' ? color(k) : k < 0 ? '#b8b8b8' : 'hsl(' + hues[k] + ',62%,52%)';
      const paths = new Map();
      const w = plotW / S.nb;
      S.bins.forEach((m, i) => {
        let y = SH;
        for (const k of [...m.keys()].sort(keyOrder)) {
          const h = m.get(k) / top * SH;
          if (h < 0.05) continue;
          y -= h;
          paths.set(k, (paths.get(k) || '') + 'M' + (labelW + i * w).toFixed(1) + ' ' + y.toFixed(2) + 'h' + w.toFixed(2) + 'v' + h.toFixed(2) + 'h' + (-w).toFixed(2) + 'z');
        }
      });
      el('svg:rect', { x: labelW, y: 0, width: plotW, height: SH, fill: '#fcfcfc', stroke: '#ddd' }, sumSvg);
      for (const k of [...paths.keys()].sort(keyOrder)) {
        const p = el('svg:path', { class: 'sum', d: paths.get(k), fill: fill(k) }, sumSvg);
        p.dataset.name = S.nameOf(k);
      }
      el('svg:text', { class: 'axis', x: labelW - 4, y: 10, 'text-anchor': 'end' }, sumSvg, top.toFixed(top < 10 && top % 1 ? 1 : 0) + ' locations');
      el('svg:text', { class: 'axis', x: labelW - 4, y: SH, 'text-anchor': 'end' }, sumSvg, '0');
      sumSvg.dataset.bins = S.nb;
      sumSvg.dataset.how = S.how;
      sumSvg.dataset.top = top;
      sumNote.textContent = S.how === 'none' ? 'no data for it' : S.nb + ' columns of ' + fmtT(S.bt) + ', ' +
        (S.how === 'slices' ? 'from every slice' : 'from the mix of regions');
    }
    sumBy.onchange = () => drawSummary();
    sumSvg.addEventListener('mousemove', (e) => {
      const r = sumSvg.getBoundingClientRect(), i = Math.floor((e.clientX - r.left - labelW) / (plotW / (summary ? summary.nb : 1)));
      const m = summary && summary.bins[i];
      if (!m) { tip.style.display = 'none'; return; }
      const t = view.t0 + i * summary.bt;
      tip.textContent = fmtAbs(t) + ' to ' + fmtAbs(t + summary.bt) + '\n' + ([...m].sort((a, b) => b[1] - a[1])
        .map(([k, n]) => n.toFixed(2) + '  ' + summary.nameOf(k)).join('\n') || 'no location in a region');
      tip.style.display = 'block';
      tip.style.left = Math.min(e.clientX + 12, window.innerWidth - 320) + 'px';
      tip.style.top = (e.clientY + 12) + 'px';
    });
    sumSvg.addEventListener('mouseleave', () => { tip.style.display = 'none'; });

    function updatePanels() {
      // Function summary: exact from the slices, else from the mix.
      const tot = new Map();
      let how;
      if (stats.exact) {
        for (const s of slices) {
          const d = clipT(s.start, s.end);
          if (d <= 0) continue;
          tot.set(s.region, (tot.get(s.region) || 0) + d);
          const p = parent.get(s);
          if (p) tot.set(p.region, (tot.get(p.region) || 0) - d);
        }
        how = 'from every slice';
      } else {
        const r = stats.total || mixOf().total;
        for (const [k, v] of r) tot.set(k, v);
        how = 'from the mix, per ' + fmtT((view.t1 - view.t0) / plotW * BIN);
      }
      sumBody.textContent = '';
      el('p', { class: 'meta' }, sumBody, fmtAbs(view.t0) + ' to ' + fmtAbs(view.t1) + ', ' + how);
      const st = el('table', { id: 'summary-table' }, sumBody);
      const sh = el('tr', {}, st);
      for (const c of ['region', 'group', 'exclusive', 'share']) el('th', { class: c === 'region' || c === 'group' ? 'l' : '' }, sh, c);
      const all = [...tot].filter((x) => x[1] > 0).sort((a, b) => b[1] - a[1]);
      const sum = all.reduce((a, x) => a + x[1], 0) || 1;
      for (const [id, v] of all) {
        const tr = el('tr', {}, st);
        const td = el('td', { class: 'l' }, tr);
        el('i', { class: 'sw', style: 'background:' + color(id) }, td);
        td.appendChild(document.createTextNode(regName(id)));
        el('td', { class: 'l' }, tr, id === 0 ? '' : groups[groupOf(id)].name);
        el('td', {}, tr, fmtT(v));
        el('td', {}, tr, (v / sum * 100).toFixed(1) + ' %');
      }
      // Message statistics.
      msgBody.textContent = '';
      let n = 0, bytes = 0, dmin = Infinity, dmax = 0, dsum = 0;
      const pairs = new Map();
      if (stats.exact) {
        for (const m of msgs) {
          if (m.send < view.t0 || m.send > view.t1) continue;
          n++; bytes += m.bytes;
          const d = m.recv - m.send;
          dmin = Math.min(dmin, d); dmax = Math.max(dmax, d); dsum += d;
          const k = m.from_id + ' ' + m.to_id, p = pairs.get(k) || { from: locLabel(m.from_id), to: locLabel(m.to_id), n: 0, bytes: 0 };
          p.n++; p.bytes += m.bytes; pairs.set(k, p);
        }
      } else {
        const cw = TL.col_width;
        for (const m of TL.bundles || []) {
          const ts = TL.start + (m.from_col + 0.5) * cw;
          if (ts < view.t0 || ts > view.t1) continue;
          n += m.count; bytes += m.bytes;
          const k = m.from_id + ' ' + m.to_id, p = pairs.get(k) || { from: locName(m.from_id), to: locName(m.to_id), n: 0, bytes: 0 };
          p.n += m.count; p.bytes += m.bytes; pairs.set(k, p);
        }
      }
      el('p', { id: 'message-summary' }, msgBody, n + ' messages sent, ' + fmtB(bytes) + (stats.exact && n ? '; time in flight min ' + fmtT(dmin) +
        ', mean ' + fmtT(dsum / n) + ', max ' + fmtT(dmax) : stats.exact ? '' : ' (by column of ' + fmtT(TL.col_width) + ')'));
      const pt = el('table', {}, msgBody);
      const ph = el('tr', {}, pt);
      for (const c of ['from', 'to', 'messages', 'bytes']) el('th', { class: c === 'from' || c === 'to' ? 'l' : '' }, ph, c);
      for (const p of [...pairs.values()].sort((a, b) => b.bytes - a.bytes || b.n - a.n).slice(0, 50)) {
        const tr = el('tr', {}, pt);
        el('td', { class: 'l' }, tr, p.from);
        el('td', { class: 'l' }, tr, p.to);
        el('td', {}, tr, p.n);
        el('td', {}, tr, fmtB(p.bytes));
      }
      drawProfile();
      drawProcess();
    }

    // The time profile: K intervals of the visible window, each a stack
    // of the time of each region over all locations.
    function drawProfile() {
      profBody.textContent = '';
      if (!MX) { el('p', {}, profBody, 'This page holds no mix of regions.'); return; }
      const K = 60, pw = Math.max(300, Math.min(profBody.clientWidth || 600, 900)) - 10, ph = 160, bt = (view.t1 - view.t0) / K;
      const acc = [];
      let top = 0;
      for (let r = 1; r <= rows; r++) {
        const locs = (MX.row_locs || [])[r - 1] || 1;
        for (const c of mixRows[r] || []) {
          const a0 = MX.start + c[1] * MX.col_width, b0 = a0 + c[2] * MX.col_width;
          const a = Math.max(a0, view.t0), b = Math.min(b0, view.t1);
          if (b <= a) continue;
          for (let i = Math.floor((a - view.t0) / bt); i <= Math.min(K - 1, Math.ceil((b - view.t0) / bt) - 1); i++) {
            const d = clipT(Math.max(a, view.t0 + i * bt), Math.min(b, view.t0 + (i + 1) * bt));
            if (d <= 0) continue;
            const m = acc[i] || (acc[i] = new Map());
            for (let k = 3; k + 1 < c.length; k += 2) m.set(c[k], (m.get(c[k]) || 0) + c[k + 1] / 1000 * d * locs);
          }
        }
      }
      for (const m of acc) if (m) top = Math.max(top, [...m.values()].reduce((x, y) => x + y, 0));
      const s = el('svg:svg', { width: pw + 10, height: ph + 20, id: 'profile-chart' }, profBody);
      const paths = new Map();
      const w = pw / K;
      acc.forEach((m, i) => {
        if (!m) return;
        let y = ph;
        for (const id of [...m.keys()].sort(stackOrder)) {
          const h = m.get(id) / (top || 1) * ph;
          if (h < 0.05) continue;
          y -= h;
          paths.set(id, (paths.get(id) || '') + 'M' + (i * w).toFixed(1) + ' ' + y.toFixed(2) + 'h' + w.toFixed(2) + 'v' + h.toFixed(2) + 'h' + (-w).toFixed(2) + 'z');
        }
      });
      for (const id of [...paths.keys()].sort(stackOrder)) el('svg:path', { d: paths.get(id), fill: color(id), class: 'prof' }, s).dataset.region = regName(id);
      el('svg:text', { x: 2, y: ph + 14, class: 'axis' }, s, fmtAbs(view.t0));
      el('svg:text', { x: pw, y: ph + 14, class: 'axis', 'text-anchor': 'end' }, s, fmtAbs(view.t1));
      el('p', { class: 'meta' }, profBody, K + ' intervals of ' + fmtT(bt) + '; full height ' + fmtT(top) + ' of location time (' +
        (top / bt).toFixed(1) + ' locations busy)');
    }

    // The process timeline: the slices of one location by depth.
    function drawProcess() {
      procBody.textContent = '';
      const loc = +procSel.value;
      if (!detail) { el('p', {}, procBody, D.served ? 'Needs every slice: zoom in to a window the server reads in full.' : 'Needs every slice: run with -from and -to for a window of this trace.'); return; }
      if (!loc) { el('p', {}, procBody, 'Rows hold ' + RS + ' locations each: expand a row of the timeline (click its label) to choose one of its locations.'); return; }
      const mine = slices.filter((s) => s.loc_id === loc && s.end >= view.t0 && s.start <= view.t1);
      const depth = mine.reduce((a, s) => Math.max(a, s.depth), 0) + 1;
      const pw = Math.max(300, Math.min(procBody.clientWidth || 600, 900)) - 10, lh = 14;
      const s = el('svg:svg', { width: pw + 10, height: depth * lh + 20, id: 'process-chart' }, procBody);
      const PX = (t) => (t - view.t0) / (view.t1 - view.t0) * pw;
      for (const x of mine) {
        const a = Math.max(PX(x.start), 0), b = Math.min(PX(x.end), pw);
        el('svg:rect', { x: a, y: x.depth * lh, width: Math.max(b - a, 0.5), height: lh - 1, fill: color(x.region), class: 'pbar' }, s).dataset.region = regName(x.region);
      }
      el('svg:text', { x: 2, y: depth * lh + 14, class: 'axis' }, s, fmtAbs(view.t0));
      el('svg:text', { x: pw, y: depth * lh + 14, class: 'axis', 'text-anchor': 'end' }, s, fmtAbs(view.t1));
      el('p', { class: 'meta' }, procBody, mine.length + ' slices of ' + locLabel(loc) + ', depth up to ' + depth);
    }

    cur = { view, render, summary: () => summary && { by: summary.by, how: summary.how, t0: view.t0, t1: view.t1, origin: ORIGIN.toString(),
      bins: summary.bins.map((m, i) => ({ t0: view.t0 + i * summary.bt, t1: view.t0 + (i + 1) * summary.bt,
        counts: Object.fromEntries([...m].map(([k, n]) => [summary.nameOf(k), n])) })) }, mouseup: () => { if (drag) { const moved = drag.moved; dragged = moved; drag = null; svg.style.cursor = ''; if (moved && typeof api.onview === 'function') api.onview(view.t0, view.t1); } },
      hash: (h) => { if (applyHash(h)) changed(); } };
    render();

    // Wait states: the critical path and the most severe instances.
    if (D.wait_dropped) {
      el('h2', {}, root, 'Wait states and critical path');
      el('p', { id: 'wait-dropped' }, root, 'Left out: the trace has more than ' + D.wait_dropped +
        ' MPI events (-waitmax). Read a window with -from and -to, or raise -waitmax.');
    }
    if (WS) {
      el('h2', {}, root, 'Wait states and critical path');
      const cp = WS.critical;
      el('p', { id: 'critical' }, root, WS.mpi_calls + ' MPI calls. Critical path: ' + fmtT(cp.length) + ' over ' +
        (cp.segments || []).length + ' segment' + ((cp.segments || []).length === 1 ? '' : 's') + (cp.coarse ? ' (merged per column)' : '') +
        '; on it most: ' + (cp.regions || []).slice(0, 5).map((r) => r.region + ' ' + fmtT(r.time)).join(', ') + '.');
      if (!WS.top || WS.top.length === 0) el('p', {}, root, 'No wait state.');
      else {
        el('p', { class: 'meta' }, root, 'The most severe instances (top ' + D.top + '); "show" zooms the timeline to both calls.');
        const t = el('table', { id: 'top-waits' }, root);
        const h = el('tr', {}, t);
        for (const c of ['pattern', 'waiting call', 'waited', 'entered', 'delayed by', '']) el('th', { class: 'l' }, h, c);
        for (const w of WS.top) {
          const tr = el('tr', {}, t);
          el('td', { class: 'l' }, tr, w.pattern);
          el('td', { class: 'l' }, tr, (w.waiter_name || locName(w.waiter.loc_id)) + ': ' + w.waiter.callpath);
          el('td', {}, tr, fmtT(w.time));
          el('td', {}, tr, fmtAbs(w.waiter.enter));
          el('td', { class: 'l' }, tr, w.delayer.loc_id ? (w.delayer_name || locName(w.delayer.loc_id)) + ': ' + w.delayer.callpath + ' at ' + fmtAbs(w.delayer.enter) : '');
          const td = el('td', { class: 'l' }, tr);
          const href = '#view=' + absT(w.view0) + ',' + absT(w.view1);
          const a = el('a', { class: 'zoom', href: href }, td, 'show');
          a.addEventListener('click', () => {
            // The same link twice fires no hashchange: apply it here.
            if (location.hash === href && applyHash(href)) changed();
            svg.scrollIntoView();
          });
        }
      }
    }

    // Charts.
    const grid = el('div', { class: 'grid' }, root);
    const section = (title, id) => { const d = el('div', { class: 'panel', id: id || '' }, grid); el('h2', {}, d, title); return el('div', { class: 'body' }, d); };
    const hbars = (parent, rowsIn, label, value, fmt) => {
      const mx = Math.max(1, ...rowsIn.map(value));
      for (const r of rowsIn) {
        const d = el('div', { class: 'hbar' }, parent);
        el('span', { class: 'n', title: label(r) }, d, label(r));
        el('span', { class: 'b', style: 'width:' + (value(r) / mx * 220).toFixed(1) + 'px' }, d);
        el('span', {}, d, fmt(r));
      }
    };

    const byRegion = new Map();
    for (const f of D.profile || []) byRegion.set(f.region, (byRegion.get(f.region) || 0) + f.excl);
    const flat = [...byRegion].sort((a, b) => b[1] - a[1]).slice(0, D.top);
    hbars(section('Flat profile (exclusive time, all locations)', 'flat-panel'), flat, (r) => r[0], (r) => r[1], (r) => fmtT(r[1]));

    const mat = section('Communication matrix (whole ' + (D.window ? 'window' : 'run') + ')', 'matrix-panel');
    if (!D.matrix || D.matrix.length === 0) el('p', {}, mat, 'No messages.');
    else {
      // Mean time in flight per pair, from the messages the page holds.
      const dur = new Map();
      for (const m of msgs) { const k = rowOfLoc(m.from_id) + ' ' + rowOfLoc(m.to_id), x = dur.get(k) || [0, 0]; x[0]++; x[1] += m.recv - m.send; dur.set(k, x); }
      const modes = [['bytes', 'bytes sent', (m) => m.bytes, (v) => fmtB(v)], ['count', 'messages', (m) => m.count, (v) => v + '']];
      if (dur.size) modes.push(['duration', 'mean time in flight', (m) => { const x = dur.get(m.from_id + ' ' + m.to_id); return x ? x[1] / x[0] : 0; }, (v) => fmtT(v)]);
      const sel = el('select', { id: 'matrix-mode' }, mat);
      for (const m of modes) el('option', { value: m[0] }, sel, m[1]);
      const box = el('div', { class: 'scroll' }, mat);
      const snd = [...new Set(D.matrix.map((m) => m.from_id))].sort((a, b) => a - b);
      const rcv = [...new Set(D.matrix.map((m) => m.to_id))].sort((a, b) => a - b);
      const at = new Map(D.matrix.map((m) => [m.from_id + ' ' + m.to_id, m]));
      const drawMatrix = () => {
        box.textContent = '';
        const [, , val, fmt] = modes.find((m) => m[0] === sel.value) || modes[0];
        const mx = Math.max(...D.matrix.map(val), 1e-300);
        const t = el('table', { class: 'heat', id: 'matrix' }, box);
        const h = el('tr', {}, t);
        el('th', { class: 'l' }, h, 'from \\ to');
        for (const r of rcv) el('th', {}, h, locName(r));
        for (const s of snd) {
          const tr = el('tr', {}, t);
          el('th', { class: 'l' }, tr, locName(s));
          for (const r of rcv) {
            const m = at.get(s + ' ' + r);
            const td = el('td', {}, tr, m ? fmt(val(m)) : '');
            if (m) { td.style.background = 'rgba(200,60,40,' + (0.1 + 0.8 * val(m) / mx).toFixed(2) + ')'; td.title = m.count + ' messages, ' + fmtB(m.bytes); }
          }
        }
      };
      sel.onchange = drawMatrix;
      drawMatrix();
    }

    const imb = section('Load imbalance (exclusive time per region and location, whole ' + (D.window ? 'window' : 'run') + ')', 'imbalance-panel');
    const perLoc = new Map();
    for (const f of D.profile || []) {
      if (!perLoc.has(f.region)) perLoc.set(f.region, new Map());
      perLoc.get(f.region).set(f.loc_id, f.excl);
    }
    const locIDs = [...new Set((D.profile || []).map((f) => f.loc_id))].sort((a, b) => a - b);
    const it = el('table', { class: 'heat', id: 'imbalance' }, el('div', { class: 'scroll' }, imb));
    const ih = el('tr', {}, it);
    el('th', { class: 'l' }, ih, 'region');
    for (const l of locIDs) el('th', {}, ih, locName(l));
    el('th', {}, ih, 'max/mean');
    for (const [name] of flat) {
      const tr = el('tr', {}, it);
      el('th', { class: 'l' }, tr, name);
      const vals = locIDs.map((l) => perLoc.get(name).get(l) || 0);
      const mx = Math.max(...vals, 1), mean = vals.reduce((a, b) => a + b, 0) / vals.length;
      vals.forEach((v) => {
        const td = el('td', {}, tr, fmtT(v));
        td.style.background = 'rgba(40,90,200,' + (0.05 + 0.75 * v / mx).toFixed(2) + ')';
      });
      el('td', {}, tr, mean > 0 ? (mx / mean).toFixed(2) : '');
    }

    hbars(section('Message sizes (sends per log2 bin)', 'sizes-panel'), (D.hist || []).filter((b) => b.count > 0),
      (b) => b.bin === 0 ? '0 B' : fmtB(b.lo) + ' – ' + fmtB(b.hi), (b) => b.count, (b) => b.count + ' (' + fmtB(b.bytes) + ')');

    // Tables.
    const table = (title, cols, data) => {
      const d = el('div', {}, root);
      el('h2', {}, d, title);
      const t = el('table', {}, el('div', { class: 'scroll wide' }, d));
      const h = el('tr', {}, t);
      cols.forEach((c, i) => el('th', { class: i < 2 ? 'l' : '' }, h, c[0]));
      for (const r of data) {
        const tr = el('tr', {}, t);
        cols.forEach((c, i) => el('td', { class: i < 2 ? 'l' : '' }, tr, c[1](r)));
      }
    };
    table('Flat profile (top ' + D.top + ' by exclusive time)', [['location', (f) => locName(f.loc_id)], ['region', (f) => f.region],
      ['visits', (f) => f.visits], ['inclusive', (f) => fmtT(f.incl)], ['exclusive', (f) => fmtT(f.excl)]],
    (D.profile || []).slice().sort((a, b) => b.excl - a.excl).slice(0, D.top));
    table('Communication (top ' + D.top + ' by bytes)', [['location', (c) => locName(c.loc_id)], ['operation', (c) => c.op + ' (' + c.dir + ' ' + (c.dir === 'send' ? 'to ' : 'from ') + locName(c.peer_id) + ')'],
      ['count', (c) => c.count], ['bytes', (c) => fmtB(c.bytes)], ['sync delay', (c) => fmtT(c.sync_delay)], ['transfer', (c) => fmtT(c.trans_time)]],
    (D.com || []).slice().sort((a, b) => b.bytes - a.bytes).slice(0, D.top));
    table('Diagnostics', [['count', (r) => r[0]], ['value', (r) => r[1]]], Object.entries(D.diagnostics || {}));
    el('h2', {}, root, 'Text report');
    el('pre', { id: 'text' }, root, D.text);
  }

  try {
    draw(JSON.parse(document.getElementById('data').textContent), null);
    document.body.setAttribute('data-rendered', 'ok');
  } catch (e) {
    fail('error: ' + (e && e.stack ? e.stack : e));
  }
})();
