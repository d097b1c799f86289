"""Evaluation: scenario runs and the question inventory through the claim message API,
the report built from the turn records, and the runtime benchmark."""
