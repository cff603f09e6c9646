-- Case- and accent-insensitive text for `search` filters: "João" matches "joao", "CONCEIÇÃO" matches "conceicao".
-- A plain SQL function (no extension) so PostgreSQL and the embedded PGlite behave the same.
CREATE OR REPLACE FUNCTION search_fold(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT
AS $$
  SELECT translate(lower(value),
    'áàâãäåéèêëíìîïóòôõöúùûüçñýÿ',
    'aaaaaaeeeeiiiiooooouuuucnyy')
$$;
