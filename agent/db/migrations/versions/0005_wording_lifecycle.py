"""wording lifecycle (issue 12): release checks, manifest audit, withdrawal follow-ups, staff roles"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    # Existing staff users keep working the waiting list; policy owners are named explicitly.
    with op.batch_alter_table("staff_users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("roles", sa.JSON(), nullable=False, server_default=sa.text("'[\"handler\"]'"))
        )
    op.create_table(
        "release_checks",
        sa.Column("id", sa.String(length=20), nullable=False),
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("version", sa.String(length=20), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("baseline_version", sa.String(length=20), nullable=True),
        sa.Column("model_name", sa.String(length=200), nullable=False),
        sa.Column("created_by", sa.String(length=120), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_release_checks_family", "release_checks", ["family"])
    op.create_index("ix_release_checks_created_at", "release_checks", ["created_at"])
    op.create_table(
        "wording_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=120), nullable=False),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("version", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_wording_audit_at", "wording_audit", ["at"])
    op.create_index("ix_wording_audit_family", "wording_audit", ["family"])
    op.create_table(
        "withdrawal_follow_ups",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("version", sa.String(length=20), nullable=False),
        sa.Column("claim_id", sa.String(length=40), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("replies", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["claim_id"], ["claims.claim_id"]),
        sa.ForeignKeyConstraint(["item_id"], ["waiting_items.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("family", "version", "claim_id"),
    )
    op.create_index("ix_withdrawal_follow_ups_claim_id", "withdrawal_follow_ups", ["claim_id"])
    op.create_index("ix_withdrawal_follow_ups_item_id", "withdrawal_follow_ups", ["item_id"])


def downgrade() -> None:
    op.drop_table("withdrawal_follow_ups")
    op.drop_table("wording_audit")
    op.drop_table("release_checks")
    with op.batch_alter_table("staff_users", schema=None) as batch_op:
        batch_op.drop_column("roles")
