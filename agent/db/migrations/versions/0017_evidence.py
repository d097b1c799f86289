"""earned answering: the evidence store (issue 33)

`evidence`: labelled questions per wording version (family, version), unique by key (an
inventory question ID, or a key naming the staff answer, flag or claimant report it came from):
what a right answer cites or that it must be routed, the facts it must and must not hold, its
source, what was served or drafted for it and how that scored, the SHA-256 of each clause it
names (evidence carries over to a version that keeps those clauses' text) and whether it is
verified or awaits review.

`answering_modes.below_bar`: a clause moved to `answers` on a written reason while its
evidence missed the bar; the automatic fall back then weighs only evidence that came after.
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"


def upgrade() -> None:
    op.create_table(
        "evidence",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("family", sa.String(40), nullable=False),
        sa.Column("version", sa.String(20), nullable=False),
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("question", sa.Text(), nullable=True),
        sa.Column("context", sa.JSON(), nullable=False),
        sa.Column("clauses", sa.JSON(), nullable=False),
        sa.Column("deciding", sa.JSON(), nullable=False),
        sa.Column("routed", sa.Boolean(), nullable=False),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("wrong_facts", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("served_clauses", sa.JSON(), nullable=False),
        sa.Column("verdict", sa.String(20), nullable=True),
        sa.Column("outcome", sa.String(20), nullable=True),
        sa.Column("scored_by", sa.String(120), nullable=True),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("clause_hashes", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("carried_from", sa.String(20), nullable=True),
        sa.Column("created_by", sa.String(120), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("item_id", sa.Integer(), sa.ForeignKey("waiting_items.id"), nullable=True),
        sa.Column("turn_id", sa.String(32), nullable=True),
        sa.UniqueConstraint("family", "version", "key", name="uq_evidence_key"),
        sa.CheckConstraint("status IN ('verified', 'awaiting_review')", name="ck_evidence_status"),
        sa.CheckConstraint(
            "outcome IS NULL OR outcome IN ('right', 'wrong', 'irrelevant', 'routed')",
            name="ck_evidence_outcome",
        ),
    )
    op.create_index("ix_evidence_version", "evidence", ["family", "version", "status", "id"])
    op.add_column(
        "answering_modes",
        sa.Column("below_bar", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    with op.batch_alter_table("answering_modes") as batch:
        batch.drop_column("below_bar")
    op.drop_index("ix_evidence_version", table_name="evidence")
    op.drop_table("evidence")
