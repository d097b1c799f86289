"""turn lifecycle: idempotency keys, per-claim turn lease, schedule labels, fuller turn records"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch_op:
        batch_op.add_column(sa.Column("idempotency_key", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("body_sha256", sa.String(length=64), nullable=True))
        batch_op.create_index("ux_messages_claim_idempotency", ["claim_id", "idempotency_key"], unique=True)
    with op.batch_alter_table("claims") as batch_op:
        batch_op.add_column(sa.Column("turn_lease_owner", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("turn_lease_until", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("schedules") as batch_op:
        batch_op.add_column(sa.Column("labels", sa.JSON(), nullable=False, server_default="{}"))
    with op.batch_alter_table("turns") as batch_op:
        batch_op.add_column(sa.Column("error_chain", sa.JSON(), nullable=False, server_default="[]"))
        batch_op.add_column(sa.Column("model_base_url", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("model_route_reason", sa.String(length=40), nullable=True))
        batch_op.create_index("ux_turns_message", ["message_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("turns") as batch_op:
        batch_op.drop_index("ux_turns_message")
        batch_op.drop_column("model_route_reason")
        batch_op.drop_column("model_base_url")
        batch_op.drop_column("error_chain")
    with op.batch_alter_table("schedules") as batch_op:
        batch_op.drop_column("labels")
    with op.batch_alter_table("claims") as batch_op:
        batch_op.drop_column("turn_lease_until")
        batch_op.drop_column("turn_lease_owner")
    with op.batch_alter_table("messages") as batch_op:
        batch_op.drop_index("ux_messages_claim_idempotency")
        batch_op.drop_column("body_sha256")
        batch_op.drop_column("idempotency_key")
