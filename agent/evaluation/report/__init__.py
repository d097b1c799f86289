"""The evaluation report, built from the turn records (what the model saw, fetched and cited)
and the HTTP replies (what the claimant was served): printed as a table, written as JSON and
as an HTML page with simple bar charts.

It leads with whether each served answer is right for the claimant who asked, judged on the
question's facts (agent.wording.questions): served answers right, served answers wrong or
irrelevant (the headline, as a share of served), answered right as a share of answerable
questions, and unanswerable questions routed; each wrong answer is listed with what it said
and the fact it missed. Expected clause fetched and cited are diagnostics.

Its modules, each importing only those before it: `figures` (per family and part, the misses
and wrong answers), `build` (build_report: the parts, targets, totals and definitions),
`verdict` (failures, exit_status, outcome_line), `tables` (rows, columns and cells shared by
the two renderings), `text` (render_text) and `page` (render_html, write_report).
"""
