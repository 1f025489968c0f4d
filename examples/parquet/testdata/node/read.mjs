// read.mjs READER=FILE ... reads each FILE with READER and prints the
// tables as one JSON array of {"columns": [...], "rows": [[...], ...]},
// every value as a string (null as null). READER is "duckdb-parquet",
// "duckdb-csv" (all columns as text) or "hyparquet"; with "duckdb-sql"
// the FILE is an SQL query that DuckDB runs (joins of the tables). The Go
// tests of examples/parquet compare the output with the CSV tables the
// SDK writes.
import { readFileSync } from 'fs';

const str = (v) => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v));
let con = null;
const out = [];
for (const arg of process.argv.slice(2)) {
  const i = arg.indexOf('=');
  const reader = arg.slice(0, i);
  const file = arg.slice(i + 1);
  let columns, rows;
  if (reader === 'hyparquet') {
    const { parquetReadObjects, parquetMetadata, parquetSchema } = await import('hyparquet');
    const buf = readFileSync(file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    columns = parquetSchema(parquetMetadata(ab)).children.map((c) => c.element.name);
    const objs = await parquetReadObjects({ file: ab });
    rows = objs.map((o) => columns.map((c) => str(o[c])));
  } else if (reader === 'duckdb-parquet' || reader === 'duckdb-csv' || reader === 'duckdb-sql') {
    if (con === null) {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      con = await (await DuckDBInstance.create(':memory:')).connect();
    }
    const q = file.replaceAll("'", "''");
    const from = reader === 'duckdb-csv'
      ? `read_csv('${q}', header = true, all_varchar = true, quote = '"', escape = '"')`
      : `read_parquet('${q}')`;
    const res = await con.runAndReadAll(reader === 'duckdb-sql' ? file : `SELECT * FROM ${from}`);
    columns = res.columnNames();
    rows = res.getRowsJS().map((r) => r.map(str));
  } else {
    throw new Error(`unknown reader ${reader}`);
  }
  out.push({ columns, rows });
}
process.stdout.write(JSON.stringify(out));
