"""Events out to the insurer's systems: an outbox written with each change, and its delivery."""
