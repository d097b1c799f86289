"""the learning loop (issue 38)

`turns.gate`: what the runtime's serving gate made of a composed answer (agent.answering.gate):
the subjects it counts for (its quoted clauses, `#schedule`, `#near`, `#model`), whether the
question was near verified ones, which subject let it be served, or which held it as a draft.
A release check replays evidence through the turn code and reads it from there.
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"


def upgrade() -> None:
    op.add_column("turns", sa.Column("gate", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("gate")
