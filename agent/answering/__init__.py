"""Earned answering: answering modes per wording version and clause, and the evidence they are earned by."""
