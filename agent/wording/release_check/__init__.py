"""Release check: what would change for claimants if a candidate wording version went live.

The question inventory of the family is asked twice, through the turn code itself
(`TurnRunner`, the configured or offline model): once with the candidate version pinned as
the governing wording, once with the version it would follow. Each served answer is judged
on the question's facts, as the evaluation judges it, and the summary leads with those
figures: served answers right, wrong or irrelevant (share of served), answered right (share
of answerable), unanswerable routed, and the answers right before that the candidate gets
wrong. Each question gets its own
fresh claim on a throwaway SQLite database seeded like the development system, so nothing
touches a running system. Beside the answers, the two versions' texts are compared: clauses
added, removed and reworded (a word diff), figures (amounts, days, percentages) that change,
and the directory's size in tokens; and their applicability (plans or cover levels, the
schedule entries that add, remove or change a clause), since a clause whose words stay while
its plans change answers differently.

A check is a pass or a failure against the bar in settings (CLAUSEDESK_BAR_*): questions per
clause and per wording, and served answers wrong or irrelevant at most a share of those served.
A check that asked no questions has no evidence and fails. Each clause's figures say whether
it meets the bar; each wrong answer is listed with the question, what was served and the fact
it missed.

One module per part, each importing only those before it: versions (the two versions, the
pinned library), text_diff, applicability, questions (asked through the turn code), directory
(its size), bar (evidence, verdict, summary), check (run_release_check) and output. The report
they build is typed, agent.answering.check_report.CheckReport, kept as JSON of the same shape.

python -m knowledge check-release motor 2027.1   (the command line lives in agent.cli.lifecycle)
"""

from agent.wording.release_check.applicability import compare_applicability
from agent.wording.release_check.check import run_release_check
from agent.wording.release_check.output import render_body, render_html, render_text, write_report
from agent.wording.release_check.text_diff import figure_changes, word_diff
from agent.wording.release_check.versions import PinnedLibrary

__all__ = [
    "PinnedLibrary",
    "compare_applicability",
    "figure_changes",
    "render_body",
    "render_html",
    "render_text",
    "run_release_check",
    "word_diff",
    "write_report",
]
