"""Policy knowledge: sources, validation, the versioned clause store and its manifest."""
