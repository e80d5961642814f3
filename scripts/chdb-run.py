#!/usr/bin/env python3
"""scripts/chdb-run.py — run the statements `fairbench queries --json --data DIR`
prints on ClickHouse's engine in-process (chdb, PyPI's chdb-core), and print
each one's outcome as a JSON line.

    fairbench queries --workload ssb --engine clickhouse --scale 0.01 --json --data /tmp/ssb > /tmp/ssb/statements.jsonl
    .bin/chdb-venv/bin/python scripts/chdb-run.py /tmp/ssb/statements.jsonl

A load sends its file's rows as `INSERT ... FORMAT TSV` followed by the rows,
in parts of at most ROWS_PER_INSERT lines. Every statement runs, whatever the
ones before it did; a statement's outcome is {"kind", "name", "error"} when it
failed, and for a query {"kind", "name", "rows"}: the result as
JSONCompactEachRow lines, 64-bit integers and decimals unquoted (so that they
read as numbers). The check that compares them is a Go test
(internal/workload/ssb, internal/workload/clickbench: TestQueriesChdb).
"""
import json
import os
import sys

ROWS_PER_INSERT = 20000

SETTINGS = " SETTINGS output_format_json_quote_64bit_integers = 0, output_format_json_quote_decimals = 0"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: chdb-run.py STATEMENTS.jsonl (from fairbench queries --json --data DIR)")
    path = sys.argv[1]
    base = os.path.dirname(os.path.abspath(path))
    try:
        from chdb import session
    except ImportError as e:
        sys.exit("chdb-run.py: %s: install chdb-core==26.9.0 (scripts/test-servers.sh puts it in .bin/chdb-venv)" % e)
    s = session.Session()
    version = str(s.query("SELECT version()", "TSV")).strip()
    print(json.dumps({"kind": "version", "name": version}), flush=True)
    with open(path) as f:
        stmts = [json.loads(line) for line in f if line.strip()]
    for st in stmts:
        out = {"kind": st["kind"], "name": st["name"]}
        if st.get("skip"):
            continue
        try:
            if st["kind"] == "load":
                if not st.get("file"):
                    raise ValueError("load of %s names no file: run fairbench queries with --data DIR" % st["name"])
                load(s, st["sql"], os.path.join(base, st["file"]))
            elif st["kind"] == "query":
                res = s.query(st["sql"] + SETTINGS, "JSONCompactEachRow")
                out["rows"] = str(res)
            else:
                s.query(st["sql"])
        except Exception as e:  # chdb raises its own error types; each is reported, none stops the run
            out["error"] = str(e).strip()
        print(json.dumps(out), flush=True)
    s.close()


def load(s, sql, file):
    with open(file) as f:
        part = []
        for line in f:
            part.append(line)
            if len(part) == ROWS_PER_INSERT:
                s.query(sql + "\n" + "".join(part))
                part = []
        if part:
            s.query(sql + "\n" + "".join(part))


if __name__ == "__main__":
    main()
