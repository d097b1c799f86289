"""hardening, fourth round (issue 30): an outbox event is claimed by one delivery at a time

`outbox.lease_owner`: the claim token of the delivery holding the event's lease, set with the
lease by one conditional UPDATE. A delivery records its result only while it still holds
that claim, so one whose lease ran out can never clear the lease another process has since
taken (which would let a third send the event at the same moment).
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"


def upgrade() -> None:
    # A plain ADD COLUMN on both databases: no batch copy of the table on SQLite.
    op.add_column("outbox", sa.Column("lease_owner", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("lease_owner")
