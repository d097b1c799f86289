"""The built-in offline model: no key, no network, a selection of verbatim spans.

It sees exactly what any model sees (instructions with the directory, the question, the
history, the tool results) and plays by the same rules: it picks clause IDs by matching the
question to directory titles, calls resolve_clauses, and selects the spans of the returned
clauses that best match the question, or routes to staff. The runtime composes the reply
from its selection (whole sentences, whether the schedule includes each clause, the plan).

Answerability comes before answering: a question about another product, a service request,
claim progress, advice, a complaint or a price is routed without fetching anything, and a
fetched clause that only shares a word with the question is not quoted (an irrelevant cited
answer is worse than routing). Plan names come from the schedule and the clause text, not
from constants.

Its modules: `prompt` reads the instructions and messages back, `answerability` says what no
wording answers, `choosing` picks clauses and their spans, `quotes` scores a clause's
sentences, and `model` is the FunctionModel loop. The package gives the builder and the name.
"""

from agent.models.offline.model import MODEL_NAME, offline_model

__all__ = ["MODEL_NAME", "offline_model"]
