"""hardening (issue 20): the double click held by the database

`messages.waiting_sha256` is the SHA-256 of a claimant message sent without an
Idempotency-Key, set when it is stored and unique per claim, so two identical requests at
once cannot both insert (the second gets IntegrityError and finds the first). It is cleared
when a later identical message finds this one answered or out of the duplicate window.
Existing rows keep NULL: only messages stored from now on are deduplicated this way.

Revision ID: 0008
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("messages", sa.Column("waiting_sha256", sa.String(length=64), nullable=True))
    op.create_index("ux_messages_claim_waiting", "messages", ["claim_id", "waiting_sha256"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_messages_claim_waiting", table_name="messages")
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("waiting_sha256")
