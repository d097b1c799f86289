"""hardening (issue 11): server-side staff sessions"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "staff_sessions",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False, unique=True),
        sa.Column("username", sa.String(length=60), sa.ForeignKey("staff_users.username"), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_staff_sessions_username", "staff_sessions", ["username"])


def downgrade() -> None:
    op.drop_index("ix_staff_sessions_username", table_name="staff_sessions")
    op.drop_table("staff_sessions")
