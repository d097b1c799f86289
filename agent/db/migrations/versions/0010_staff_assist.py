"""staff assist (issue 22): drafts bound to what they were made from; the wording and the
pre-send check of each staff answer
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0011"


def upgrade() -> None:
    with op.batch_alter_table("waiting_items", schema=None) as batch_op:
        batch_op.add_column(sa.Column("answer_version", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("answer_content_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("send_check", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("send_warning", sa.Text(), nullable=True))
    op.create_table(
        "drafts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("made_by", sa.String(length=60), nullable=True),
        sa.Column("origin", sa.String(length=20), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("citations", sa.JSON(), nullable=False),
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("version", sa.String(length=20), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("last_message_id", sa.Integer(), nullable=True),
        sa.Column("claim_status", sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["waiting_items.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_drafts_item_id", "drafts", ["item_id"])
    op.create_index("ix_drafts_family", "drafts", ["family"])


def downgrade() -> None:
    op.drop_table("drafts")
    with op.batch_alter_table("waiting_items", schema=None) as batch_op:
        batch_op.drop_column("send_warning")
        batch_op.drop_column("send_check")
        batch_op.drop_column("answer_content_hash")
        batch_op.drop_column("answer_version")
