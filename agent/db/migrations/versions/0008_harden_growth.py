"""hardening and growth (issue 20): the double click held by the database; indexes for
the reads that grow with the data

`messages.waiting_sha256` is the SHA-256 of a claimant message sent without an
Idempotency-Key, set when it is stored and unique per claim, so two identical requests at
once cannot both insert (the second gets IntegrityError and finds the first). It is cleared
when a later identical message finds this one answered or out of the duplicate window.
Existing rows keep NULL: only messages stored from now on are deduplicated this way.

The growth benchmark (`python -m agent bench --growth`, 1,000,000 turns) found these reads
scanning or sorting whole tables:
- the waiting list by status (and reason or family), oldest first, with its counts;
- a conversation page, joined to the staff answers by answer_message_id (unindexed);
- replies citing a wording version (the wording page's counts, `agent affected`);
- the sweep for interrupted messages, every 10 s over every message ever stored (now the
  last hour's, by created_at).
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0006"

INDEXES = (
    ("ix_waiting_status_created", "waiting_items", ["status", "created_at", "id"]),
    ("ix_waiting_status_reason", "waiting_items", ["status", "reason", "created_at"]),
    ("ix_waiting_status_family", "waiting_items", ["status", "family", "created_at"]),
    ("ix_waiting_answer_message", "waiting_items", ["answer_message_id"]),
    ("ix_messages_claim_id_id", "messages", ["claim_id", "id"]),
    ("ix_messages_created", "messages", ["created_at"]),
    ("ix_turns_family_version_cited", "turns", ["family", "version", "citations_verified", "started_at"]),
)


def upgrade() -> None:
    op.add_column("messages", sa.Column("waiting_sha256", sa.String(length=64), nullable=True))
    op.create_index("ux_messages_claim_waiting", "messages", ["claim_id", "waiting_sha256"], unique=True)
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns)


def downgrade() -> None:
    for name, table, _ in INDEXES:
        op.drop_index(name, table_name=table)
    op.drop_index("ux_messages_claim_waiting", table_name="messages")
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("waiting_sha256")
