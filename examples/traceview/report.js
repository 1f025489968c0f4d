// The report page's script: it draws the data of the element #data (see
// pageData in main.go) into #report, then marks the body with
// data-rendered="ok". Errors are written into #errors.
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

  function main() {
    const D = JSON.parse(document.getElementById('data').textContent);
    const TL = D.timeline;
    const tps = TL.ticks_per_second || 1;
    const root = document.getElementById('report');
    const locName = (id) => (TL.locations || [])[id - 1] || ('loc ' + id);
    const regName = (id) => ((TL.regions || [])[id - 1] || { name: 'region ' + id }).name;
    const color = (id) => 'hsl(' + ((id * 137.508) % 360).toFixed(1) + ',58%,' + (52 + (id % 3) * 8) + '%)';
    const fmtT = (ticks) => {
      const s = ticks / tps, a = Math.abs(s);
      if (a === 0) return '0 s';
      if (a < 1e-6) return (s * 1e9).toPrecision(4) + ' ns';
      if (a < 1e-3) return (s * 1e6).toPrecision(4) + ' µs';
      if (a < 1) return (s * 1e3).toPrecision(4) + ' ms';
      return s.toPrecision(4) + ' s';
    };
    const fmtB = (b) => b >= 1 << 30 ? (b / (1 << 30)).toFixed(1) + ' GiB' : b >= 1 << 20 ? (b / (1 << 20)).toFixed(1) + ' MiB' : b >= 1024 ? (b / 1024).toFixed(1) + ' KiB' : b + ' B';

    el('h1', {}, root, 'hpctrace report: ' + D.name);
    el('div', { class: 'meta' }, root, D.events + ' events, ' + (D.locations ?? (TL.locations || []).length) + ' locations' +
      (TL.row_size > 1 ? ' (' + TL.row_size + ' to a timeline row)' : '') + ', ' + (D.regions ?? (TL.regions || []).length) +
      ' regions, clock ' + D.clock + '; ' + (D.window ? 'the chosen window, ' : '') + fmtT(TL.end - TL.start) +
      ' from ' + (TL.start / tps).toPrecision(12).replace(/\.?0+$/, '') + ' s (times below count from there)');
    const rel = (t) => fmtT(t - TL.start);

    // Timeline.
    el('h2', {}, root, 'Timeline');
    const bar = el('div', { class: 'toolbar' }, root);
    const bIn = el('button', { type: 'button' }, bar, 'zoom in');
    const bOut = el('button', { type: 'button' }, bar, 'zoom out');
    const bReset = el('button', { type: 'button' }, bar, 'reset');
    const mode = el('span', {}, bar);
    const rows = (TL.locations || []).length;
    const rowH = Math.max(14, Math.min(40, Math.floor(320 / Math.max(rows, 1)))), labelW = 130, axisH = 20, trackH = 24;
    const W = Math.max(600, Math.min(root.clientWidth || 1200, 1600));
    const plotW = W - labelW - 10;
    // Counter tracks sit under their location's row.
    const tracks = D.counters || [];
    const tracksOf = new Map();
    tracks.forEach((c, i) => { if (!tracksOf.has(c.loc)) tracksOf.set(c.loc, []); tracksOf.get(c.loc).push(i); });
    const rowTop = [], trackTop = [];
    let yAt = axisH;
    for (let l = 1; l <= rows; l++) {
      rowTop[l] = yAt;
      yAt += rowH;
      for (const i of tracksOf.get(l) || []) { trackTop[i] = yAt; yAt += trackH; }
    }
    const H = yAt + 4;
    const WS = D.wait;
    const svg = el('svg:svg', { id: 'timeline', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H }, root);
    const legend = el('div', { class: 'legend' }, root);
    const tip = el('div', { id: 'tip' }, document.body);
    const full = { t0: TL.start, t1: Math.max(TL.end, TL.start + 1) };
    const view = { t0: full.t0, t1: full.t1 };
    // VT is the timeline drawn: the page's, or in served mode the
    // window's that serve.js gives setTimeline (below).
    let VT = TL, detail, slices, msgs;
    const useTimeline = (tl) => {
      VT = tl;
      detail = tl.detail;
      slices = detail ? (detail.slices || []).slice().sort((a, b) => a.depth - b.depth) : [];
      msgs = detail ? detail.messages || [] : [];
    };
    useTimeline(TL);
    const X = (t) => labelW + (t - view.t0) / (view.t1 - view.t0) * plotW;
    const rowY = (loc) => rowTop[loc] === undefined ? axisH + (loc - 1) * rowH : rowTop[loc];
    let items = [];

    function render() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      items = [];
      const used = new Set();
      const span = view.t1 - view.t0;
      for (let i = 0; i <= 6; i++) {
        const t = view.t0 + span * i / 6, x = X(t);
        el('svg:line', { x1: x, x2: x, y1: axisH - 4, y2: H, stroke: '#eee' }, svg);
        el('svg:text', { class: 'axis', x: Math.min(x, W - 40), y: 12, 'text-anchor': i === 0 ? 'start' : 'middle' }, svg, rel(t));
      }
      for (let l = 1; l <= rows; l++) {
        const g = el('svg:g', { class: 'row', 'data-loc': l }, svg);
        el('svg:rect', { x: 0, y: rowY(l), width: W, height: rowH, fill: l % 2 ? '#fafafa' : '#fff' }, g);
        el('svg:text', { class: 'label', x: 4, y: rowY(l) + rowH / 2 + 4 }, g, locName(l));
      }
      tracks.forEach((c, i) => {
        const g = el('svg:g', { class: 'ctrack', 'data-loc': c.loc }, svg);
        el('svg:rect', { x: 0, y: trackTop[i], width: W, height: trackH, fill: '#f4f7fb' }, g);
        el('svg:text', { class: 'label ctr-label', x: 14, y: trackTop[i] + trackH / 2 + 4 }, g, c.counter);
      });
      const plot = el('svg:svg', { x: labelW, y: 0, width: plotW, height: H, viewBox: labelW + ' 0 ' + plotW + ' ' + H }, svg);
      let nbars = 0, nmsgs = 0;
      if (detail) {
        mode.textContent = 'every slice and message (' + slices.length + ' slices, ' + msgs.length + ' messages)';
        for (const s of slices) {
          if (s.end < view.t0 || s.start > view.t1) continue;
          const x = X(s.start), w = Math.max(X(s.end) - x, 0.6), inset = Math.min(s.depth * 4, rowH / 2 - 2);
          const r = el('svg:rect', { class: 'bar' + (s.coll ? ' coll' : ''), x: x, y: rowY(s.loc) + 2 + inset, width: w,
            height: rowH - 4 - inset, fill: color(s.region), 'data-i': items.length }, plot);
          r.dataset.region = regName(s.region);
          items.push(() => regName(s.region) + (s.coll ? ' (collective' + (s.comm ? ' on ' + s.comm : '') + ')' : '') + '\n' +
            locName(s.loc) + '\n' + rel(s.start) + ' to ' + rel(s.end) + ' (' + fmtT(s.end - s.start) + ')');
          used.add(s.region);
          nbars++;
        }
        for (const m of msgs) {
          if (Math.max(m.send, m.recv) < view.t0 || Math.min(m.send, m.recv) > view.t1) continue;
          el('svg:line', { class: 'msg', x1: X(m.send), y1: rowY(m.from) + rowH / 2, x2: X(m.recv), y2: rowY(m.to) + rowH / 2,
            'stroke-width': 1.5, 'data-i': items.length }, plot);
          items.push(() => 'message ' + locName(m.from) + ' → ' + locName(m.to) + ', ' + fmtB(m.bytes) + ', tag ' + m.tag + '\nsent ' +
            rel(m.send) + ', received ' + rel(m.recv) + ' (' + fmtT(m.recv - m.send) + ')');
          nmsgs++;
        }
      } else {
        mode.textContent = 'aggregated to ' + VT.columns + ' columns of ' + fmtT(VT.col_width) +
          ' (dominant region per column); run with -from and -to for every slice of a window';
        const cw = VT.col_width;
        for (const c of VT.cells || []) {
          const a = VT.start + c.col * cw, b = a + c.span * cw;
          if (b < view.t0 || a > view.t1 || c.region === 0) continue;
          const x = X(a);
          const coll = ((TL.regions || [])[c.region - 1] || {}).kind === 'collective';
          el('svg:rect', { class: 'bar cell' + (coll ? ' coll' : ''), x: x, y: rowY(c.loc) + 2, width: Math.max(X(b) - x, 0.6), height: rowH - 4,
            fill: color(c.region), 'data-i': items.length }, plot).dataset.region = regName(c.region);
          items.push(() => regName(c.region) + ' (dominant)\n' + locName(c.loc) + '\n' + rel(a) + ' to ' + rel(b) + '\n' + c.msgs + ' messages sent');
          used.add(c.region);
          nbars++;
        }
        // Many bundles would hide the bars: the more there are, the
        // fainter each line.
        const op = Math.max(0.04, Math.min(0.6, 40 / Math.max((VT.bundles || []).length, 1))).toFixed(3);
        for (const m of VT.bundles || []) {
          const ts = VT.start + (m.from_col + 0.5) * cw, tr = VT.start + (m.to_col + 0.5) * cw;
          if (Math.max(ts, tr) < view.t0 || Math.min(ts, tr) > view.t1) continue;
          el('svg:line', { class: 'msg', x1: X(ts), y1: rowY(m.from) + rowH / 2, x2: X(tr), y2: rowY(m.to) + rowH / 2,
            'stroke-width': 1 + Math.log2(m.count) / 3, style: 'stroke-opacity:' + op, 'data-i': items.length }, plot);
          items.push(() => m.count + ' messages ' + locName(m.from) + ' → ' + locName(m.to) + ', ' + fmtB(m.bytes) +
            '\nsent near ' + rel(ts) + ', received near ' + rel(tr));
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
      svg.dataset.view0 = Math.round(view.t0);
      svg.dataset.view1 = Math.round(view.t1);
      if (hooks.note) mode.textContent += '; ' + hooks.note;
      if (hooks.onView) hooks.onView(view.t0, view.t1);
      legend.textContent = '';
      for (const id of [...used].sort((a, b) => a - b)) {
        const s = el('span', {}, legend);
        el('i', { style: 'background:' + color(id) }, s);
        s.appendChild(document.createTextNode(regName(id)));
      }
      if (WS) {
        const s = el('span', {}, legend);
        el('i', { class: 'wait-key' }, s);
        s.appendChild(document.createTextNode('waiting in an MPI call (wait state)'));
        const c = el('span', {}, legend);
        el('i', { class: 'crit-key' }, c);
        c.appendChild(document.createTextNode('critical path' + (WS.critical.coarse ? ' (per column)' : '')));
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
          el('svg:rect', { class: 'wait', x: x, y: rowY(w.loc) + 1, width: Math.max(X(w.end) - x, 0.8), height: rowH - 2, 'data-i': items.length }, plot);
          items.push(() => WS.patterns[w.pat] + ': waited ' + fmtT(w.end - w.start) + ' in ' + w.region + '\n' + locName(w.loc) +
            (w.delayer ? ', for ' + locName(w.delayer) : '') + '\n' + rel(w.start) + ' to ' + rel(w.end));
          n++;
        }
        return n;
      }
      const cw = TL.col_width;
      for (const c of WS.cells || []) {
        const a = TL.start + c.col * cw, b = a + cw;
        if (b < view.t0 || a > view.t1) continue;
        const x = X(a);
        el('svg:rect', { class: 'wait', x: x, y: rowY(c.loc) + 1, width: Math.max(X(b) - x, 0.8), height: rowH - 2,
          style: 'fill-opacity:' + (0.15 + 0.6 * Math.min(1, c.time / cw)).toFixed(2), 'data-i': items.length }, plot);
        items.push(() => 'waited ' + fmtT(c.time) + ' of ' + fmtT(cw) + ' in MPI calls\n' + locName(c.loc) + '\n' + rel(a) + ' to ' + rel(b));
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
        if (!WS.critical.coarse && prev && prev.loc !== s.loc && Math.max(prev.end, s.start) >= view.t0 && Math.min(prev.end, s.start) <= view.t1) {
          el('svg:line', { class: 'crit-hop', x1: X(prev.end), y1: rowY(prev.loc) + rowH - 2, x2: X(s.start), y2: rowY(s.loc) + rowH - 2 }, plot);
        }
        prev = s;
        if (s.end < view.t0 || s.start > view.t1) continue;
        const y = rowY(s.loc) + rowH - 2;
        el('svg:line', { class: 'crit', x1: X(s.start), y1: y, x2: Math.max(X(s.end), X(s.start) + 1), y2: y, 'data-i': items.length }, plot);
        items.push(() => 'critical path on ' + locName(s.loc) + '\n' + rel(s.start) + ' to ' + rel(s.end) + ' (' + fmtT(s.end - s.start) + ')');
        n++;
      }
      return n;
    }

    // Counter tracks: a step line of each track's samples, exact where the
    // page holds them, otherwise per bucket (first, min, max, last).
    function drawCounters(plot) {
      let n = 0;
      tracks.forEach((c, i) => {
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
        items.push(() => c.counter + (c.unit ? ' [' + c.unit + ']' : '') + ' on ' + locName(c.loc) + '\n' + c.samples + ' samples' +
          (c.points ? '' : ' (drawn per bucket of ' + fmtT(c.width) + ')') + ', min ' + c.min.toPrecision(6) + ', max ' + c.max.toPrecision(6) +
          ', mean ' + c.mean.toPrecision(6) + (c.non_finite ? '\n' + c.non_finite + ' samples NaN or infinite, not drawn' : ''));
        n++;
      });
      return n;
    }

    // The hooks of served mode (serve.js, loaded only by traceview
    // -serve): it learns every view drawn (onView) and has the timeline
    // of a window of the same rows drawn instead of the page's
    // (setTimeline; the page's again with hooks.page), with a note for
    // the toolbar.
    const hooks = window.traceview = {
      page: TL, full: full, onView: null, note: '',
      view: () => [view.t0, view.t1],
      setTimeline: (tl, note) => { useTimeline(tl); hooks.note = note || ''; render(); },
    };

    const zoom = (f, at) => {
      const c = at === undefined ? (view.t0 + view.t1) / 2 : at;
      let t0 = c - (c - view.t0) * f, t1 = c + (view.t1 - c) * f;
      if (t1 - t0 < 1) return;
      view.t0 = Math.max(t0, full.t0); view.t1 = Math.min(t1, full.t1);
      render();
    };
    bIn.onclick = () => zoom(0.5);
    bOut.onclick = () => zoom(2);
    bReset.onclick = () => { view.t0 = full.t0; view.t1 = full.t1; render(); };
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, view.t0 + (e.clientX - r.left - labelW) / plotW * (view.t1 - view.t0));
    }, { passive: false });
    let drag = null;
    svg.addEventListener('mousedown', (e) => { drag = { x: e.clientX, t0: view.t0, t1: view.t1 }; svg.style.cursor = 'grabbing'; });
    window.addEventListener('mouseup', () => { drag = null; svg.style.cursor = ''; });
    svg.addEventListener('mousemove', (e) => {
      if (drag) {
        let dt = -(e.clientX - drag.x) / plotW * (drag.t1 - drag.t0);
        dt = Math.max(full.t0 - drag.t0, Math.min(full.t1 - drag.t1, dt));
        view.t0 = drag.t0 + dt; view.t1 = drag.t1 + dt;
        render();
        return;
      }
      const i = e.target.getAttribute && e.target.getAttribute('data-i');
      if (i === null || i === undefined) { tip.style.display = 'none'; return; }
      tip.textContent = items[+i]();
      tip.style.display = 'block';
      tip.style.left = (e.clientX + 12) + 'px';
      tip.style.top = (e.clientY + 12) + 'px';
    });
    svg.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
    // A link can open the page zoomed, or zoom it: #view=T0,T1 (ticks).
    const applyHash = (h) => {
      const hv = /^#view=(-?\d+),(-?\d+)$/.exec(h);
      if (!hv || +hv[2] <= +hv[1]) return false;
      view.t0 = Math.max(+hv[1], full.t0); view.t1 = Math.min(+hv[2], full.t1);
      if (view.t1 <= view.t0) { view.t0 = full.t0; view.t1 = full.t1; }
      return true;
    };
    applyHash(location.hash);
    window.addEventListener('hashchange', () => { if (applyHash(location.hash)) render(); });
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
          el('td', { class: 'l' }, tr, (w.waiter_name || locName(w.waiter.Loc)) + ': ' + w.waiter.CallPath);
          el('td', {}, tr, fmtT(w.time));
          el('td', {}, tr, rel(w.waiter.Enter));
          el('td', { class: 'l' }, tr, w.delayer.Loc ? (w.delayer_name || locName(w.delayer.Loc)) + ': ' + w.delayer.CallPath + ' at ' + rel(w.delayer.Enter) : '');
          const td = el('td', { class: 'l' }, tr);
          const href = '#view=' + w.view0 + ',' + w.view1;
          const a = el('a', { class: 'zoom', href: href }, td, 'show');
          a.addEventListener('click', () => {
            // The same link twice fires no hashchange: apply it here.
            if (location.hash === href && applyHash(href)) render();
            svg.scrollIntoView();
          });
        }
      }
    }

    // Charts.
    const grid = el('div', { class: 'grid' }, root);
    const section = (title) => { const d = el('div', {}, grid); el('h2', {}, d, title); return d; };
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
    hbars(section('Flat profile (exclusive time, all locations)'), flat, (r) => r[0], (r) => r[1], (r) => fmtT(r[1]));

    const mat = section('Communication matrix (bytes sent)');
    if (!D.matrix || D.matrix.length === 0) el('p', {}, mat, 'No messages.');
    else {
      const snd = [...new Set(D.matrix.map((m) => m.from))].sort((a, b) => a - b);
      const rcv = [...new Set(D.matrix.map((m) => m.to))].sort((a, b) => a - b);
      const mx = Math.max(...D.matrix.map((m) => m.bytes), 1);
      const t = el('table', { class: 'heat', id: 'matrix' }, mat);
      const h = el('tr', {}, t);
      el('th', { class: 'l' }, h, 'from \\ to');
      for (const r of rcv) el('th', {}, h, locName(r));
      for (const s of snd) {
        const tr = el('tr', {}, t);
        el('th', { class: 'l' }, tr, locName(s));
        for (const r of rcv) {
          const m = D.matrix.find((x) => x.from === s && x.to === r);
          const td = el('td', {}, tr, m ? fmtB(m.bytes) : '');
          if (m) { td.style.background = 'rgba(200,60,40,' + (0.1 + 0.8 * m.bytes / mx).toFixed(2) + ')'; td.title = m.count + ' messages'; }
        }
      }
    }

    const imb = section('Load imbalance (exclusive time per region and location)');
    const perLoc = new Map();
    for (const f of D.profile || []) {
      if (!perLoc.has(f.region)) perLoc.set(f.region, new Map());
      perLoc.get(f.region).set(f.loc, f.excl);
    }
    const locIDs = [...new Set((D.profile || []).map((f) => f.loc))].sort((a, b) => a - b);
    const it = el('table', { class: 'heat', id: 'imbalance' }, imb);
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

    hbars(section('Message sizes (sends per log2 bin)'), (D.hist || []).filter((b) => b.count > 0),
      (b) => b.bin === 0 ? '0 B' : fmtB(b.lo) + ' – ' + fmtB(b.hi), (b) => b.count, (b) => b.count + ' (' + fmtB(b.bytes) + ')');

    // Tables.
    const table = (title, cols, data) => {
      const d = el('div', {}, root);
      el('h2', {}, d, title);
      const t = el('table', {}, d);
      const h = el('tr', {}, t);
      cols.forEach((c, i) => el('th', { class: i < 2 ? 'l' : '' }, h, c[0]));
      for (const r of data) {
        const tr = el('tr', {}, t);
        cols.forEach((c, i) => el('td', { class: i < 2 ? 'l' : '' }, tr, c[1](r)));
      }
    };
    table('Flat profile (top ' + D.top + ' by exclusive time)', [['location', (f) => locName(f.loc)], ['region', (f) => f.region],
      ['visits', (f) => f.visits], ['inclusive', (f) => fmtT(f.incl)], ['exclusive', (f) => fmtT(f.excl)]],
    (D.profile || []).slice().sort((a, b) => b.excl - a.excl).slice(0, D.top));
    table('Communication (top ' + D.top + ' by bytes)', [['location', (c) => locName(c.loc)], ['operation', (c) => c.op + ' (' + c.dir + ' ' + (c.dir === 'send' ? 'to ' : 'from ') + locName(c.peer) + ')'],
      ['count', (c) => c.count], ['bytes', (c) => fmtB(c.bytes)], ['sync delay', (c) => fmtT(c.sync_delay)], ['transfer', (c) => fmtT(c.trans_time)]],
    (D.com || []).slice().sort((a, b) => b.bytes - a.bytes).slice(0, D.top));
    table('Diagnostics', [['count', (r) => r[0]], ['value', (r) => r[1]]], Object.entries(D.diagnostics || {}));
    el('h2', {}, root, 'Text report');
    el('pre', { id: 'text' }, root, D.text);
  }

  try {
    main();
    document.body.setAttribute('data-rendered', 'ok');
  } catch (e) {
    fail('error: ' + (e && e.stack ? e.stack : e));
  }
})();
