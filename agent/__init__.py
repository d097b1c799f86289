"""The claimant agent, the turn runner, the HTTP API, the waiting list and the database."""
