"""Alembic environment: runs on the connection that agent.db.tables.upgrade() hands it."""

from alembic import context

from agent.db.tables import Base

connection = context.config.attributes.get("connection")
if connection is None:
    from agent.db.tables import make_engine
    from agent.settings import get_settings

    connection = make_engine(get_settings().database_url).connect()

context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
