"""The import of an insurer's own wording: a PDF, DOCX, HTML or Markdown file in, a draft
source file, its report and its review page out (`python -m knowledge import`, then
`python -m knowledge review`). The runtime's clause store never imports it. In pipeline
order (run by `pipeline`): `bounds` refuses a file too large before it is read; `extract`
reads layout-aware blocks; `segment` groups them into units by meaning; `amend` applies a
supplementary document; long units are split; `accounting` balances every source character
page by page; IDs are carried over from the previous version; `cover_matrix` and
`applicability` draft the applies lines; `titles` drafts titles; `links` joins terms to
their definitions and cross-references to their targets; `header` finds the insurer and the
currency the wording names; `report` writes what the policy owner must review, and `review`
serves the page where they review it. `command` is the import's command line, `sample`
renders the synthetic Kowhai wording as an insurer would publish it, and `probe` imports a
long PDF under a memory limit.
"""
