"""A real clausedesk API process whose model never answers: the crash test kills it mid-turn.

`python -m tests.hung_server PORT`, settings from the CLAUSEDESK_* environment as for
`python -m agent serve`; only the model differs (scripted, as everywhere in the tests).
"""

from __future__ import annotations

import asyncio
import sys

import uvicorn
from pydantic_ai.models.function import FunctionModel

from agent.api.app import create_app
from agent.seed import seed_policies


async def never_answers(messages, info):  # type: ignore[no-untyped-def]
    await asyncio.Event().wait()


def main(port: int) -> None:
    app = create_app(model=FunctionModel(function=never_answers, model_name="hung"))
    seed_policies(app.state.services.sessions)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(int(sys.argv[1]))
