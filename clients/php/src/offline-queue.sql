-- The offline queue's store, the same in the PHP and Python clients (one table of entries, in the
-- order of enqueue). A store made before `ref` existed gets its two columns when it is opened.
pragma journal_mode=wal;
-- On disk before enqueue returns.
pragma synchronous=full;
create table if not exists meta (name text primary key, value text not null);
create table if not exists entries (
  seq integer primary key autoincrement,
  id text not null unique,
  method text not null,
  path text not null,
  key text not null,
  body blob not null,
  waits_for text not null,
  enqueued_at real not null,
  first_attempt_at real,
  state text not null default 'pending',
  server_id integer,
  found integer not null default 0,
  error text,
  ref text,
  ref_digest text
);
