"""initial schema

Create Date: 2026-11-29 18:19:40.898350
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    # Written by Alembic, then split by table so that no function runs past a screen; the
    # operations and their order are as generated.
    _policies_staff_and_claims()
    _messages()
    _turns()
    _waiting_items()


def _policies_staff_and_claims() -> None:
    """Policies, staff users, claims and schedules."""
    op.create_table(
        "policies",
        sa.Column("policy_number", sa.String(length=40), nullable=False),
        sa.Column("family", sa.String(length=20), nullable=False),
        sa.Column("policyholder", sa.String(length=200), nullable=False),
        sa.Column("plan", sa.String(length=60), nullable=False),
        sa.Column("term_start", sa.Date(), nullable=False),
        sa.Column("term_end", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint("policy_number"),
    )
    op.create_table(
        "staff_users",
        sa.Column("username", sa.String(length=60), nullable=False),
        sa.Column("display_name", sa.String(length=120), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("username"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "claims",
        sa.Column("claim_id", sa.String(length=40), nullable=False),
        sa.Column("policy_number", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("incident_date", sa.Date(), nullable=True),
        sa.Column("incident", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["policy_number"],
            ["policies.policy_number"],
        ),
        sa.PrimaryKeyConstraint("claim_id"),
    )
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_claims_policy_number"), ["policy_number"], unique=False)

    op.create_table(
        "schedules",
        sa.Column("policy_number", sa.String(length=40), nullable=False),
        sa.Column("sections", sa.JSON(), nullable=False),
        sa.Column("excess", sa.JSON(), nullable=False),
        sa.Column("sums_insured", sa.JSON(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["policy_number"],
            ["policies.policy_number"],
        ),
        sa.PrimaryKeyConstraint("policy_number"),
    )


def _messages() -> None:
    """The conversation: one row a message."""
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("claim_id", sa.String(length=40), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("turn_id", sa.String(length=32), nullable=True),
        sa.Column("waiting_reference", sa.String(length=20), nullable=True),
        sa.Column("author", sa.String(length=100), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.claim_id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_messages_claim_id"), ["claim_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_messages_turn_id"), ["turn_id"], unique=False)


def _turns() -> None:
    """The turn records."""
    op.create_table(
        "turns",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("claim_id", sa.String(length=40), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("family", sa.String(length=20), nullable=True),
        sa.Column("version", sa.String(length=20), nullable=True),
        sa.Column("directory_hash", sa.String(length=64), nullable=True),
        sa.Column("directory_seen", sa.JSON(), nullable=False),
        sa.Column("requested", sa.JSON(), nullable=False),
        sa.Column("returned", sa.JSON(), nullable=False),
        sa.Column("not_found", sa.JSON(), nullable=False),
        sa.Column("cited", sa.JSON(), nullable=False),
        sa.Column("citations", sa.JSON(), nullable=False),
        sa.Column("checks", sa.JSON(), nullable=False),
        sa.Column("citations_verified", sa.Boolean(), nullable=False),
        sa.Column("guidance_status", sa.String(length=40), nullable=True),
        sa.Column("outcome", sa.String(length=30), nullable=True),
        sa.Column("route_reason", sa.String(length=40), nullable=True),
        sa.Column("model_name", sa.String(length=200), nullable=True),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("model_requests", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Double(), nullable=True),
        sa.Column("error", sa.String(length=200), nullable=True),
        sa.Column("model_messages", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.claim_id"],
        ),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["messages.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_turns_claim_id"), ["claim_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_turns_outcome"), ["outcome"], unique=False)


def _waiting_items() -> None:
    """The staff waiting list."""
    op.create_table(
        "waiting_items",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("reference", sa.String(length=20), nullable=False),
        sa.Column("claim_id", sa.String(length=40), nullable=False),
        sa.Column("turn_id", sa.String(length=32), nullable=True),
        sa.Column("family", sa.String(length=20), nullable=True),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("reason", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("taken_by", sa.String(length=100), nullable=True),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("close_reason", sa.Text(), nullable=True),
        sa.Column("answer_message_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["answer_message_id"],
            ["messages.id"],
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.claim_id"],
        ),
        sa.ForeignKeyConstraint(
            ["turn_id"],
            ["turns.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("reference"),
    )
    with op.batch_alter_table("waiting_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_waiting_items_claim_id"), ["claim_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_waiting_items_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_waiting_items_family"), ["family"], unique=False)
        batch_op.create_index(batch_op.f("ix_waiting_items_reason"), ["reason"], unique=False)
        batch_op.create_index(batch_op.f("ix_waiting_items_status"), ["status"], unique=False)


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    with op.batch_alter_table("waiting_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_waiting_items_status"))
        batch_op.drop_index(batch_op.f("ix_waiting_items_reason"))
        batch_op.drop_index(batch_op.f("ix_waiting_items_family"))
        batch_op.drop_index(batch_op.f("ix_waiting_items_created_at"))
        batch_op.drop_index(batch_op.f("ix_waiting_items_claim_id"))

    op.drop_table("waiting_items")
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_turns_outcome"))
        batch_op.drop_index(batch_op.f("ix_turns_claim_id"))

    op.drop_table("turns")
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_messages_turn_id"))
        batch_op.drop_index(batch_op.f("ix_messages_claim_id"))

    op.drop_table("messages")
    op.drop_table("schedules")
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_claims_policy_number"))

    op.drop_table("claims")
    op.drop_table("staff_users")
    op.drop_table("policies")
    # ### end Alembic commands ###
