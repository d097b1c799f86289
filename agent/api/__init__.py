"""HTTP API: claimant routes, staff routes, pages, and their shared dependencies."""
