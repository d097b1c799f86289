"""insurer integration (issue 21): policy terms, claimant references, intake audit,
integration clients and the event outbox

Every existing policy becomes one term, from its term dates, plan and schedule, so claims
keep the wording they had.
"""

import json
from datetime import date

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.create_table(
        "policy_terms",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("policy_number", sa.String(length=40), nullable=False),
        sa.Column("term_start", sa.Date(), nullable=False),
        sa.Column("term_end", sa.Date(), nullable=False),
        sa.Column("plan", sa.String(length=60), nullable=False),
        sa.Column("schedule", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["policy_number"], ["policies.policy_number"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("policy_number", "term_start"),
    )
    op.create_index("ix_policy_terms_policy_number", "policy_terms", ["policy_number"])
    _one_term_per_existing_policy()
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimant_ref", sa.String(length=200), nullable=True))
        batch_op.create_index("ix_claims_claimant_ref", ["claimant_ref"], unique=False)
    op.create_table(
        "intake_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=120), nullable=False),
        sa.Column("action", sa.String(length=30), nullable=False),
        sa.Column("subject", sa.String(length=40), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_intake_audit_at", "intake_audit", ["at"])
    op.create_index("ix_intake_audit_subject", "intake_audit", ["subject"])
    op.create_table(
        "integration_clients",
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_outbox_pending", "outbox", ["delivered_at", "next_attempt_at"])


def _one_term_per_existing_policy() -> None:
    connection = op.get_bind()
    rows = connection.execute(
        sa.text(
            "SELECT p.policy_number, p.term_start, p.term_end, p.plan, s.policy_number AS scheduled, "
            "s.sections, s.excess, s.sums_insured, s.details, s.labels "
            "FROM policies p LEFT JOIN schedules s ON s.policy_number = p.policy_number"
        )
    ).mappings()
    terms = sa.table(
        "policy_terms",
        sa.column("policy_number", sa.String),
        sa.column("term_start", sa.Date),
        sa.column("term_end", sa.Date),
        sa.column("plan", sa.String),
        sa.column("schedule", sa.JSON),
    )
    values = []
    for row in rows:  # raw SQL: SQLite gives JSON and dates back as text
        schedule = None
        if row["scheduled"] is not None:
            schedule = {
                key: json.loads(row[key]) if isinstance(row[key], str) else row[key]
                for key in ("sections", "excess", "sums_insured", "details", "labels")
            }
            schedule["endorsements"] = []
        values.append(
            {
                "policy_number": row["policy_number"],
                "term_start": _date(row["term_start"]),
                "term_end": _date(row["term_end"]),
                "plan": row["plan"],
                "schedule": schedule,
            }
        )
    if values:
        op.bulk_insert(terms, values)


def _date(value: object) -> date:
    return date.fromisoformat(value) if isinstance(value, str) else value  # type: ignore[return-value]


def downgrade() -> None:
    op.drop_index("ix_outbox_pending", table_name="outbox")
    op.drop_table("outbox")
    op.drop_table("integration_clients")
    op.drop_index("ix_intake_audit_subject", table_name="intake_audit")
    op.drop_index("ix_intake_audit_at", table_name="intake_audit")
    op.drop_table("intake_audit")
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.drop_index("ix_claims_claimant_ref")
        batch_op.drop_column("claimant_ref")
    op.drop_index("ix_policy_terms_policy_number", table_name="policy_terms")
    op.drop_table("policy_terms")
