"""growth, second round (issue 20): indexes for the reads still slow at 1,000,000 turns

The growth benchmark (`python -m agent bench --growth`) found after 0008:
- the wording page read every turn of each version to count the replies citing it; now one
  grouped count per kind, from a partial index of the turns that cited something;
- the routed share (content gaps) scanned every turn for the last eight weeks' (a window
  index, covering on PostgreSQL);
- the default queue (open and taken, oldest first) sorted the waiting items at each page;
- the unchecked sends of the last 30 days scanned every waiting item.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"

CITING = "CAST(cited AS TEXT) NOT IN ('[]', 'null')"
WAITING = "status IN ('open', 'taken')"
WINDOW = ("family", "outcome", "id", "returned")  # what the routed share reads of each turn


def upgrade() -> None:
    op.create_index(
        "ix_turns_citing",
        "turns",
        ["family", "version"],
        postgresql_where=sa.text(CITING),
        sqlite_where=sa.text(CITING),
    )
    # Covering on both: PostgreSQL keeps the other columns beside the key (INCLUDE, as json has
    # no ordering), SQLite in the key itself (it has no INCLUDE).
    if op.get_bind().dialect.name == "sqlite":
        op.create_index("ix_turns_started", "turns", ["started_at", *WINDOW])
    else:
        op.create_index("ix_turns_started", "turns", ["started_at"], postgresql_include=list(WINDOW))
    op.create_index(
        "ix_waiting_waiting_created",
        "waiting_items",
        ["created_at", "id"],
        postgresql_where=sa.text(WAITING),
        sqlite_where=sa.text(WAITING),
    )
    op.create_index("ix_waiting_send_check_answered", "waiting_items", ["send_check", "answered_at"])


def downgrade() -> None:
    op.drop_index("ix_waiting_send_check_answered", table_name="waiting_items")
    op.drop_index("ix_waiting_waiting_created", table_name="waiting_items")
    op.drop_index("ix_turns_started", table_name="turns")
    op.drop_index("ix_turns_citing", table_name="turns")
