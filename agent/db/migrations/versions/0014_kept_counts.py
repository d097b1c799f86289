"""growth, third round (issue 20): counts kept at write time, a row per cited clause, paged
`affected`

Three tables derived from the turn records and waiting items, kept by triggers in the
transaction of every write (the turn runner, the recovery sweep, a withdrawal's follow-ups,
bulk loads, deletes and hand-made SQL alike), so they never disagree with what they count:
- `routed_share_days`: questions and routed questions per UTC day, family and fetched
  clause (clause_id '' for the family as a whole): content gaps no longer group eight
  weeks of turns at each read. A question is a turn with a family whose outcome is not
  `nothing_asked`; it is routed while some waiting item points at it, however late that
  item came (the definition agent.staff.routed_share had).
- `citing_counts`: per family, version and cited clause (clause_id '': any), how many turn
  records cited it: the wording page and the totals of `agent affected`.
- `turn_citations`: one row per turn record and clause it cited, in time order per family,
  version and clause: `agent affected --clause` pages these.
All three are filled from the existing rows here. SQLite gets row triggers; PostgreSQL
statement triggers with transition tables (a bulk COPY is one grouped update) and row
triggers for the rare updates of the counted columns.

Indexes: the turns that cited something in time order per version (the agent replies of
`affected`, paged), waiting items by turn (whether a turn is routed), by family newest
first (the gaps page's questions with no clause, one family at a time) and by time with their
family and reason (the gaps page's 30-day counts), answered items per family and drafts per
version (the other two kinds of `affected`); the started_at index keeps only its key (its
covering columns served the routed share alone).

A later migration that rebuilds `turns` or `waiting_items` on SQLite (batch mode copies the
table) drops their triggers and must create them again.
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"

CITING = "CAST(cited AS TEXT) NOT IN ('[]', 'null')"
ANSWERED = "answer_message_id IS NOT NULL"
TURN_TRIGGERS = ("turns_kept_insert", "turns_kept_update", "turns_kept_delete")
ITEM_TRIGGERS = ("waiting_items_kept_insert", "waiting_items_kept_update", "waiting_items_kept_delete")
# The columns of a turn record the kept tables read: a change to any other leaves them as they are.
COUNTED = ("started_at", "family", "version", "returned", "cited", "outcome")


def upgrade() -> None:
    op.create_table(
        "routed_share_days",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("clause_id", sa.String(), nullable=False),
        sa.Column("questions", sa.Integer(), nullable=False),
        sa.Column("routed", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("day", "family", "clause_id"),
    )
    op.create_table(
        "citing_counts",
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("version", sa.String(length=20), nullable=False),
        sa.Column("clause_id", sa.String(), nullable=False),
        sa.Column("replies", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("family", "version", "clause_id"),
    )
    op.create_table(
        "turn_citations",
        sa.Column("turn_id", sa.String(length=32), nullable=False),
        sa.Column("clause_id", sa.String(), nullable=False),
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("version", sa.String(length=20), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("turn_id", "clause_id"),
    )
    op.create_index(
        "ix_turn_citations_clause",
        "turn_citations",
        ["family", "version", "clause_id", "started_at", "turn_id"],
    )
    op.drop_index("ix_turns_citing", table_name="turns")
    op.create_index(
        "ix_turns_citing",
        "turns",
        ["family", "version", "started_at", "id"],
        postgresql_where=sa.text(CITING),
        sqlite_where=sa.text(CITING),
    )
    op.drop_index("ix_turns_started", table_name="turns")
    op.create_index("ix_turns_started", "turns", ["started_at", "id"])
    op.create_index("ix_waiting_turn", "waiting_items", ["turn_id"])
    op.drop_index("ix_waiting_items_family", table_name="waiting_items")
    op.create_index("ix_waiting_family_created", "waiting_items", ["family", "created_at"])
    op.drop_index("ix_waiting_items_created_at", table_name="waiting_items")
    op.create_index("ix_waiting_created", "waiting_items", ["created_at", "id", "family", "reason"])
    op.create_index(
        "ix_waiting_answered",
        "waiting_items",
        ["family", "answered_at", "id"],
        postgresql_where=sa.text(ANSWERED),
        sqlite_where=sa.text(ANSWERED),
    )
    op.create_index("ix_drafts_version", "drafts", ["family", "version", "made_at", "id"])
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_upgrade()
    else:
        _postgresql_upgrade()


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in (*TURN_TRIGGERS, *ITEM_TRIGGERS):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        for name in TURN_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON turns")
        for name in ITEM_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON waiting_items")
        for name in (*TURN_TRIGGERS, *ITEM_TRIGGERS, "kept_routed"):
            op.execute(f"DROP FUNCTION IF EXISTS {name} CASCADE")
    op.drop_index("ix_drafts_version", table_name="drafts")
    op.drop_index("ix_waiting_answered", table_name="waiting_items")
    op.drop_index("ix_waiting_created", table_name="waiting_items")
    op.create_index("ix_waiting_items_created_at", "waiting_items", ["created_at"])
    op.drop_index("ix_waiting_family_created", table_name="waiting_items")
    op.create_index("ix_waiting_items_family", "waiting_items", ["family"])
    op.drop_index("ix_waiting_turn", table_name="waiting_items")
    op.drop_index("ix_turns_started", table_name="turns")
    window = ("family", "outcome", "id", "returned")
    if op.get_bind().dialect.name == "sqlite":
        op.create_index("ix_turns_started", "turns", ["started_at", *window])
    else:
        op.create_index("ix_turns_started", "turns", ["started_at"], postgresql_include=list(window))
    op.drop_index("ix_turns_citing", table_name="turns")
    op.create_index(
        "ix_turns_citing",
        "turns",
        ["family", "version"],
        postgresql_where=sa.text(CITING),
        sqlite_where=sa.text(CITING),
    )
    op.drop_index("ix_turn_citations_clause", table_name="turn_citations")
    op.drop_table("turn_citations")
    op.drop_table("citing_counts")
    op.drop_table("routed_share_days")


# SQLite: row triggers -------------------------------------------------------------------------


def _question(row: str) -> str:
    """A turn the routed share counts: it has a family and asked something."""
    return f"{row}.family IS NOT NULL AND ({row}.outcome IS NULL OR {row}.outcome <> 'nothing_asked')"


def _sqlite_strings(json: str) -> str:
    """The strings of a JSON list, as rows of `value` (none when it is not a list)."""
    listed = f"CASE WHEN json_type({json}) = 'array' THEN {json} END"
    return f"SELECT value FROM json_each({listed}) WHERE type = 'text'"


def _sqlite_add(row: str) -> list[str]:
    """What one turn record adds to the kept tables."""
    routed = f"EXISTS (SELECT 1 FROM waiting_items WHERE turn_id = {row}.id)"
    return [
        f"""INSERT INTO routed_share_days (day, family, clause_id, questions, routed)
        SELECT substr({row}.started_at, 1, 10), {row}.family, clause_id, 1, {routed}
        FROM (SELECT '' AS clause_id UNION {_sqlite_strings(f"{row}.returned")})
        WHERE {_question(row)}
        ON CONFLICT (day, family, clause_id) DO UPDATE
        SET questions = questions + excluded.questions, routed = routed + excluded.routed""",
        f"""INSERT INTO citing_counts (family, version, clause_id, replies)
        SELECT {row}.family, {row}.version, clause_id, 1
        FROM (SELECT '' AS clause_id UNION {_sqlite_strings(f"{row}.cited")})
        WHERE {row}.family IS NOT NULL AND {row}.version IS NOT NULL
          AND CAST({row}.cited AS TEXT) NOT IN ('[]', 'null')
        ON CONFLICT (family, version, clause_id) DO UPDATE SET replies = replies + 1""",
        f"""INSERT INTO turn_citations (turn_id, clause_id, family, version, started_at)
        SELECT DISTINCT {row}.id, value, {row}.family, {row}.version, {row}.started_at
        FROM ({_sqlite_strings(f"{row}.cited")})
        WHERE {row}.family IS NOT NULL AND {row}.version IS NOT NULL""",
    ]


def _sqlite_remove(row: str) -> list[str]:
    """What one turn record takes away again (an update removes the old row, adds the new)."""
    return [
        f"""UPDATE routed_share_days
        SET questions = questions - 1,
            routed = routed - EXISTS (SELECT 1 FROM waiting_items WHERE turn_id = {row}.id)
        WHERE {_question(row)} AND day = substr({row}.started_at, 1, 10) AND family = {row}.family
          AND clause_id IN (SELECT '' UNION {_sqlite_strings(f"{row}.returned")})""",
        f"""UPDATE citing_counts SET replies = replies - 1
        WHERE {row}.family IS NOT NULL AND {row}.version IS NOT NULL
          AND CAST({row}.cited AS TEXT) NOT IN ('[]', 'null')
          AND family = {row}.family AND version = {row}.version
          AND clause_id IN (SELECT '' UNION {_sqlite_strings(f"{row}.cited")})""",
        f"DELETE FROM turn_citations WHERE turn_id = {row}.id",
    ]


def _sqlite_routed(turn: str, sign: str, when: str) -> str:
    """A turn became routed (its first item) or stopped being routed (its last item went)."""
    return f"""UPDATE routed_share_days SET routed = routed {sign} 1
    WHERE {when}
      AND (day, family) = (SELECT substr(t.started_at, 1, 10), t.family FROM turns AS t
                           WHERE t.id = {turn} AND {_question("t")})
      AND clause_id IN (SELECT '' UNION SELECT j.value FROM turns AS t,
                        json_each(CASE WHEN json_type(t.returned) = 'array' THEN t.returned END) AS j
                        WHERE t.id = {turn} AND j.type = 'text')"""


def _sqlite_upgrade() -> None:
    counted = ", ".join(COUNTED)
    body = {
        "turns_kept_insert": ("AFTER INSERT ON turns", _sqlite_add("NEW")),
        "turns_kept_update": (
            f"AFTER UPDATE OF {counted} ON turns",
            _sqlite_remove("OLD") + _sqlite_add("NEW"),
        ),
        "turns_kept_delete": ("AFTER DELETE ON turns", _sqlite_remove("OLD")),
    }
    others = "SELECT 1 FROM waiting_items WHERE turn_id = {0}.turn_id"
    first = f"NEW.turn_id IS NOT NULL AND NOT EXISTS ({others.format('NEW')} AND id <> NEW.id)"
    last = f"OLD.turn_id IS NOT NULL AND NOT EXISTS ({others.format('OLD')})"
    body |= {
        "waiting_items_kept_insert": (
            "AFTER INSERT ON waiting_items",
            [_sqlite_routed("NEW.turn_id", "+", first)],
        ),
        "waiting_items_kept_update": (
            "AFTER UPDATE OF turn_id ON waiting_items",
            [_sqlite_routed("OLD.turn_id", "-", last), _sqlite_routed("NEW.turn_id", "+", first)],
        ),
        "waiting_items_kept_delete": (
            "AFTER DELETE ON waiting_items",
            [_sqlite_routed("OLD.turn_id", "-", last)],
        ),
    }
    _sqlite_backfill()
    for name, (event, statements) in body.items():
        op.execute(f"CREATE TRIGGER {name} {event} FOR EACH ROW BEGIN\n" + ";\n".join(statements) + ";\nEND")


def _sqlite_backfill() -> None:
    routed = "EXISTS (SELECT 1 FROM waiting_items AS w WHERE w.turn_id = t.id)"
    strings = "json_each(CASE WHEN json_type({0}) = 'array' THEN {0} END) AS j"
    op.execute(
        f"""INSERT INTO routed_share_days (day, family, clause_id, questions, routed)
        SELECT day, family, clause_id, count(*), sum(routed) FROM (
            SELECT substr(t.started_at, 1, 10) AS day, t.family, '' AS clause_id, {routed} AS routed
            FROM turns AS t WHERE {_question("t")}
            UNION ALL
            SELECT day, family, clause_id, routed FROM (
                SELECT DISTINCT t.id, substr(t.started_at, 1, 10) AS day, t.family, j.value AS clause_id,
                       {routed} AS routed
                FROM turns AS t, {strings.format("t.returned")}
                WHERE {_question("t")} AND j.type = 'text'))
        GROUP BY day, family, clause_id"""
    )
    op.execute(
        f"""INSERT INTO citing_counts (family, version, clause_id, replies)
        SELECT family, version, clause_id, count(*) FROM (
            SELECT t.family, t.version, '' AS clause_id FROM turns AS t
            WHERE t.family IS NOT NULL AND t.version IS NOT NULL AND {CITING.replace("cited", "t.cited")}
            UNION ALL
            SELECT family, version, clause_id FROM (
                SELECT DISTINCT t.id, t.family, t.version, j.value AS clause_id
                FROM turns AS t, {strings.format("t.cited")}
                WHERE t.family IS NOT NULL AND t.version IS NOT NULL AND j.type = 'text'))
        GROUP BY family, version, clause_id"""
    )
    op.execute(
        f"""INSERT INTO turn_citations (turn_id, clause_id, family, version, started_at)
        SELECT DISTINCT t.id, j.value, t.family, t.version, t.started_at
        FROM turns AS t, {strings.format("t.cited")}
        WHERE t.family IS NOT NULL AND t.version IS NOT NULL AND j.type = 'text'"""
    )


# PostgreSQL: statement triggers over transition tables ----------------------------------------

# Each statement below reads `d`: the turn records changed, one row each with its sign (+1 for
# a row written, -1 for a row removed or as it was before an update).
_PG_STRINGS = (
    "SELECT DISTINCT e.value #>> '{{}}' AS clause_id FROM json_array_elements("
    "CASE WHEN json_typeof({0}) = 'array' THEN {0} ELSE '[]'::json END) AS e(value) "
    "WHERE json_typeof(e.value) = 'string'"
)
_PG_QUESTION = _question("d")


def _pg_statements(delta: str) -> list[str]:
    """What a set of changed turn records does to the kept tables. Additions are upserts in
    key order (concurrent writers lock the shared rows in one order); removals only update."""
    share = f"""WITH d AS ({delta}),
    q AS (
        SELECT d.id, date(timezone('UTC', d.started_at)) AS day, d.family, d.returned, d.sign,
               CASE WHEN EXISTS (SELECT 1 FROM waiting_items AS w WHERE w.turn_id = d.id)
                    THEN d.sign ELSE 0 END AS routed
        FROM d WHERE {_PG_QUESTION}
    ),
    k AS (
        SELECT day, family, clause_id, sum(sign) AS questions, sum(routed) AS routed FROM (
            SELECT day, family, '' AS clause_id, sign, routed FROM q
            UNION ALL
            SELECT q.day, q.family, c.clause_id, q.sign, q.routed
            FROM q CROSS JOIN LATERAL ({_PG_STRINGS.format("q.returned")}) AS c
        ) AS x GROUP BY day, family, clause_id
    ),
    added AS (
        INSERT INTO routed_share_days AS r (day, family, clause_id, questions, routed)
        SELECT day, family, clause_id, questions, routed FROM k
        WHERE questions >= 0 AND routed >= 0 AND (questions > 0 OR routed > 0)
        ORDER BY day, family, clause_id
        ON CONFLICT (day, family, clause_id) DO UPDATE
        SET questions = r.questions + excluded.questions, routed = r.routed + excluded.routed
    )
    UPDATE routed_share_days AS r SET questions = r.questions + k.questions, routed = r.routed + k.routed
    FROM k WHERE (r.day, r.family, r.clause_id) = (k.day, k.family, k.clause_id)
      AND (k.questions < 0 OR k.routed < 0)"""
    counts = f"""WITH d AS ({delta}),
    k AS (
        SELECT family, version, clause_id, sum(sign) AS replies FROM (
            SELECT d.family, d.version, '' AS clause_id, d.sign FROM d
            WHERE d.family IS NOT NULL AND d.version IS NOT NULL AND {CITING.replace("cited", "d.cited")}
            UNION ALL
            SELECT d.family, d.version, c.clause_id, d.sign
            FROM d CROSS JOIN LATERAL ({_PG_STRINGS.format("d.cited")}) AS c
            WHERE d.family IS NOT NULL AND d.version IS NOT NULL
        ) AS x GROUP BY family, version, clause_id
    ),
    added AS (
        INSERT INTO citing_counts AS r (family, version, clause_id, replies)
        SELECT family, version, clause_id, replies FROM k WHERE replies > 0
        ORDER BY family, version, clause_id
        ON CONFLICT (family, version, clause_id) DO UPDATE SET replies = r.replies + excluded.replies
    )
    UPDATE citing_counts AS r SET replies = r.replies + k.replies
    FROM k WHERE (r.family, r.version, r.clause_id) = (k.family, k.version, k.clause_id) AND k.replies < 0"""
    gone = f"""WITH d AS ({delta})
    DELETE FROM turn_citations AS c USING d WHERE d.sign < 0 AND c.turn_id = d.id"""
    cited = f"""WITH d AS ({delta})
    INSERT INTO turn_citations (turn_id, clause_id, family, version, started_at)
    SELECT d.id, c.clause_id, d.family, d.version, d.started_at
    FROM d CROSS JOIN LATERAL ({_PG_STRINGS.format("d.cited")}) AS c
    WHERE d.sign > 0 AND d.family IS NOT NULL AND d.version IS NOT NULL"""
    return [share, counts, gone, cited]


def _pg_rows(table: str, sign: int) -> str:
    return f"SELECT id, started_at, family, version, returned, cited, outcome, {sign} AS sign FROM {table}"


def _pg_record(record: str, sign: int) -> str:
    return "SELECT " + ", ".join(f"{record}.{c} AS {c}" for c in ("id", *COUNTED)) + f", {sign} AS sign"


def _pg_function(name: str, statements: list[str]) -> None:
    body = ";\n".join(statements)
    op.execute(
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        f"BEGIN\n{body};\nRETURN NULL;\nEND\n$$"
    )


def _postgresql_upgrade() -> None:
    # No write may fall between the backfill and the triggers.
    op.execute("LOCK TABLE turns, waiting_items IN SHARE ROW EXCLUSIVE MODE")
    for statement in _pg_statements(_pg_rows("turns", 1)):
        op.execute(statement)
    _pg_function("turns_kept_insert", _pg_statements(_pg_rows("new_turns", 1)))
    _pg_function("turns_kept_delete", _pg_statements(_pg_rows("old_turns", -1)))
    _pg_function(
        "turns_kept_update",
        _pg_statements(f"{_pg_record('OLD', -1)} UNION ALL {_pg_record('NEW', 1)}"),
    )
    changed = " OR ".join(
        f"OLD.{c}::text IS DISTINCT FROM NEW.{c}::text"
        if c in ("returned", "cited")
        else f"OLD.{c} IS DISTINCT FROM NEW.{c}"
        for c in COUNTED
    )
    op.execute(
        "CREATE TRIGGER turns_kept_insert AFTER INSERT ON turns REFERENCING NEW TABLE AS new_turns "
        "FOR EACH STATEMENT EXECUTE FUNCTION turns_kept_insert()"
    )
    op.execute(
        "CREATE TRIGGER turns_kept_delete AFTER DELETE ON turns REFERENCING OLD TABLE AS old_turns "
        "FOR EACH STATEMENT EXECUTE FUNCTION turns_kept_delete()"
    )
    op.execute(
        f"CREATE TRIGGER turns_kept_update AFTER UPDATE OF {', '.join(COUNTED)} ON turns "
        f"FOR EACH ROW WHEN ({changed}) EXECUTE FUNCTION turns_kept_update()"
    )
    # Whether a turn is routed changes with its first item and when its last one goes. The turn
    # rows are locked first (in id order), so two transactions adding items to one turn count it
    # once: the second reads the first's item once it has committed.
    op.execute(
        f"""CREATE OR REPLACE FUNCTION kept_routed(turn_ids text[], delta integer) RETURNS void
        LANGUAGE sql AS $$
        WITH t AS (SELECT * FROM turns AS d WHERE d.id = ANY(turn_ids) AND {_PG_QUESTION}),
        k AS (
            SELECT day, family, clause_id, count(*) AS n FROM (
                SELECT date(timezone('UTC', t.started_at)) AS day, t.family, '' AS clause_id FROM t
                UNION ALL
                SELECT date(timezone('UTC', t.started_at)), t.family, c.clause_id
                FROM t CROSS JOIN LATERAL ({_PG_STRINGS.format("t.returned")}) AS c
            ) AS x GROUP BY day, family, clause_id
        )
        UPDATE routed_share_days AS r SET routed = r.routed + delta * k.n
        FROM k WHERE (r.day, r.family, r.clause_id) = (k.day, k.family, k.clause_id)
        $$"""
    )
    lock = "PERFORM 1 FROM turns WHERE id = ANY({0}) ORDER BY id FOR NO KEY UPDATE"
    ids = "ARRAY(SELECT DISTINCT turn_id FROM {0} WHERE turn_id IS NOT NULL)"
    _pg_function(
        "waiting_items_kept_insert",
        [
            lock.format(ids.format("new_items")),
            "PERFORM kept_routed(ARRAY(SELECT t.id FROM turns AS t WHERE t.id = ANY("
            + ids.format("new_items")
            + ") AND NOT EXISTS (SELECT 1 FROM waiting_items AS w WHERE w.turn_id = t.id "
            "AND w.id NOT IN (SELECT id FROM new_items))), 1)",
        ],
    )
    _pg_function(
        "waiting_items_kept_delete",
        [
            lock.format(ids.format("old_items")),
            "PERFORM kept_routed(ARRAY(SELECT t.id FROM turns AS t WHERE t.id = ANY("
            + ids.format("old_items")
            + ") AND NOT EXISTS (SELECT 1 FROM waiting_items AS w WHERE w.turn_id = t.id)), -1)",
        ],
    )
    _pg_function(
        "waiting_items_kept_update",
        [
            lock.format("ARRAY[OLD.turn_id, NEW.turn_id]"),
            "IF OLD.turn_id IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM waiting_items WHERE turn_id = OLD.turn_id) "
            "THEN PERFORM kept_routed(ARRAY[OLD.turn_id], -1); END IF",
            "IF NEW.turn_id IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM waiting_items WHERE turn_id = NEW.turn_id AND id <> NEW.id) "
            "THEN PERFORM kept_routed(ARRAY[NEW.turn_id], 1); END IF",
        ],
    )
    op.execute(
        "CREATE TRIGGER waiting_items_kept_insert AFTER INSERT ON waiting_items "
        "REFERENCING NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION waiting_items_kept_insert()"
    )
    op.execute(
        "CREATE TRIGGER waiting_items_kept_delete AFTER DELETE ON waiting_items "
        "REFERENCING OLD TABLE AS old_items FOR EACH STATEMENT EXECUTE FUNCTION waiting_items_kept_delete()"
    )
    op.execute(
        "CREATE TRIGGER waiting_items_kept_update AFTER UPDATE OF turn_id ON waiting_items "
        "FOR EACH ROW WHEN (OLD.turn_id IS DISTINCT FROM NEW.turn_id) "
        "EXECUTE FUNCTION waiting_items_kept_update()"
    )
