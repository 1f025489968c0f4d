// slices.js DOC reads a Chrome Trace Event Format document with
// TracerBench's trace model (an independent reader: it sorts the events,
// pairs B/E into complete slices per thread) and prints, as JSON, for each
// thread name: its slices by name (count and summed duration in µs, the
// collective operations' slices left out), its instant events by name, and
// its flow starts and ends. The model requires a "cat" on every event,
// which the format does not: events without one get an empty one.
const { buildModel } = require('@tracerbench/trace-model');
const fs = require('fs');
const doc = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const events = (doc.traceEvents || doc).map((e) => ('cat' in e ? e : { ...e, cat: '' }));
const model = buildModel(events);
const out = {};
for (const p of model.processes) {
  for (const t of p.threads) {
    for (const ev of t.events) {
      const cats = Array.isArray(ev.cat) ? ev.cat : [ev.cat];
      let key;
      if (ev.ph === 'X' && !cats.includes('collective_op')) key = 'slice\t' + t.name + '\t' + ev.name;
      else if (ev.ph === 'i' || ev.ph === 'I') key = 'instant\t' + t.name + '\t' + ev.name;
      else if (ev.ph === 's') key = 'send\t' + t.name;
      else if (ev.ph === 'f') key = 'recv\t' + t.name;
      else continue;
      const v = out[key] || [0, 0];
      v[0]++; v[1] += ev.duration;
      out[key] = v;
    }
  }
}
console.log(JSON.stringify(out));
