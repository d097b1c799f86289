"""`python -m agent bench --growth`: how the system behaves as its data grows.

On a fresh database (a temporary SQLite file, or `--database-url` pointing at an empty
PostgreSQL database) with its own local S3 server: the development claims and staff are
seeded, a long conversation is built on CLM-204518 by real turns through the HTTP API
(offline model), and the claimant turn at its end is timed. Then, in bulk (batched
executemany), 10,000 claims with their policies and schedules, 1,000,000 turns with a
claimant message and a reply each, and 100,000 waiting-list items (one per routed turn)
are written, spread over the last year. Bulk turn records copy the columns of a real
answered or routed record of this run, except the two large ones (the model messages and
the directory seen), which only the long conversation's real turns keep. Then p50 and p95
of every staff read, the wording page, `agent affected` (its totals and first page, with a
clause filter, and a page deep in the list), conversation reads and the turn at the end of
the long conversation again, all through HTTP except `affected` (its function, as the command
calls it). `--scale` shrinks every count for a smoke run. The bulk rows go through the
database triggers that keep the counts (migration 0014), as every write does.
PostgreSQL is vacuumed and analysed after the bulk load, as its autovacuum would (it vacuums
insert-only tables too, so index-only scans need not visit the rows); SQLite is not (no SQLite
application analyses on its own). `--existing` measures a database an earlier run filled
again (after a migration, say) without filling it: `--database-url sqlite:///FILE` keeps a
SQLite one.

Its modules: `shape` (what the data is made of, and its sizes), `data` (the bulk data
written), `measures` (the timed reads and turns) and `command` (run_growth and its table).
"""
