"""turn selection: what the model selected and what the runtime composed, and when a turn ended

The model returns a selection (clause spans, schedule keys) instead of prose and the runtime
composes the reply from it; the turn record keeps both. `started_at` is stamped when the turn
begins, `finished_at` when its record is saved.
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0009"


def upgrade() -> None:
    with op.batch_alter_table("turns") as batch_op:
        batch_op.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("selection", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("composed", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("turns") as batch_op:
        batch_op.drop_column("composed")
        batch_op.drop_column("selection")
        batch_op.drop_column("finished_at")
