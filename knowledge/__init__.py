"""Policy knowledge. The flat modules are the runtime's versioned clause store: wording
sources and their validation, the store and its manifest, ingest and release records. The
import of an insurer's own wording into a draft source file lives in `knowledge.importing`.
"""
