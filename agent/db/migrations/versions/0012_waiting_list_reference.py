"""one name for the waiting-list reference: messages.waiting_reference becomes
waiting_list_reference, the name the API gives it
"""

from alembic import op

revision = "0012"
down_revision = "0010"


def upgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.alter_column("waiting_reference", new_column_name="waiting_list_reference")


def downgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.alter_column("waiting_list_reference", new_column_name="waiting_reference")
