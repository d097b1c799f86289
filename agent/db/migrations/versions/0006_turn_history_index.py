"""turn history index: a claim's latest turns read in index order

Every turn reads its claim's last few turns as history; without this index the database
sorts all of the claim's turns (their stored messages included) to find them.
"""

from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_index("ix_turns_claim_started", "turns", ["claim_id", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_turns_claim_started", table_name="turns")
