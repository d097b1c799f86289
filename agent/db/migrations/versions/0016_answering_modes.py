"""earned answering (issue 33) and replies no selection can bend (issue 31)

`answering_modes`: each row one change of the answering mode of a wording version (clause_id
NULL) or of one of its clauses: `drafts` (a policy question is drafted for staff) or `answers`
(served to the claimant). The latest row of a clause wins, else the latest of its version;
with none a version drafts. Rows are never changed: they are the audit of who moved what, when,
why, citing which release check, and whether it was the automatic fall back.

`waiting_items.part`: the span of the claimant's message an answer in part did not cover, when
it is a meaningful one; the item's question is always the whole message.
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"


def upgrade() -> None:
    op.create_table(
        "answering_modes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("family", sa.String(40), nullable=False),
        sa.Column("version", sa.String(20), nullable=False),
        sa.Column("clause_id", sa.String(20), nullable=True),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changed_by", sa.String(120), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("release_check_id", sa.String(40), nullable=True),
        sa.Column("automatic", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.CheckConstraint("mode IN ('drafts', 'answers')", name="ck_answering_modes_mode"),
    )
    op.create_index("ix_answering_modes_version", "answering_modes", ["family", "version", "clause_id", "id"])
    op.add_column("waiting_items", sa.Column("part", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("waiting_items") as batch:
        batch.drop_column("part")
    op.drop_index("ix_answering_modes_version", table_name="answering_modes")
    op.drop_table("answering_modes")
