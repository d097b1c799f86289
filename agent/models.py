"""Model selection: the offline model by default, otherwise any litellm model string.

pydantic-ai speaks the OpenAI chat format; litellm speaks to every provider (OpenAI,
Anthropic, Bedrock through boto3, Ollama, any OpenAI-compatible server). The bridge is an
HTTP transport under pydantic-ai's OpenAI client that hands each chat request to
`litellm.acompletion` in-process, so no LiteLLM proxy server is needed.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import httpx2
from pydantic_ai.models import Model

from agent.offline import offline_model
from agent.settings import Settings

log = logging.getLogger(__name__)
OFFLINE = "offline"


def build_model(settings: Settings) -> Model:
    if settings.model == OFFLINE:
        return offline_model()
    return litellm_model(
        settings.model,
        api_base=settings.model_api_base,
        api_key=settings.model_api_key,
        timeout_s=settings.model_timeout_s,
    )


def model_label(model: Model) -> str:
    return f"{model.system}:{model.model_name}"


def litellm_model(
    model: str, *, api_base: str | None = None, api_key: str | None = None, timeout_s: float = 30.0
) -> Model:
    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    transport = LiteLLMTransport(model, api_base=api_base, api_key=api_key, timeout_s=timeout_s)
    client = AsyncOpenAI(
        base_url="http://litellm.invalid/v1",  # never dialled: the transport answers
        api_key="unused",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport, timeout=timeout_s + 5),
    )
    chat = OpenAIChatModel(model, provider=OpenAIProvider(openai_client=client))
    return chat


class LiteLLMTransport(httpx2.AsyncBaseTransport):
    """Answers the OpenAI client's POST /chat/completions by calling litellm.acompletion."""

    def __init__(
        self, model: str, *, api_base: str | None, api_key: str | None, timeout_s: float, num_retries: int = 1
    ):
        self.model = model
        self.api_base = api_base
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.num_retries = num_retries

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not request.url.path.endswith("/chat/completions"):
            return _error(request, 404, f"unsupported path {request.url.path}")
        body: dict[str, Any] = json.loads(await request.aread())
        body.pop("model", None)
        body.pop("stream_options", None)
        if body.get("stream"):
            return _error(request, 400, "streaming is not used by clausedesk")
        litellm = _litellm()
        try:
            response = await litellm.acompletion(
                model=self.model,
                api_base=self.api_base,
                api_key=self.api_key,
                timeout=self.timeout_s,
                num_retries=self.num_retries,
                drop_params=True,
                **body,
            )
        except Exception as exc:  # litellm maps every provider error to its own types
            status = getattr(exc, "status_code", None) or 502
            log.warning("litellm model %s failed: %s (%s)", self.model, type(exc).__name__, status)
            return _error(request, int(status), f"{type(exc).__name__}: {exc}")
        return httpx2.Response(200, json=response.model_dump(mode="json"), request=request)


def _error(request: httpx2.Request, status: int, message: str) -> httpx2.Response:
    return httpx2.Response(
        status, json={"error": {"message": message, "type": "litellm_error"}}, request=request
    )


def _litellm() -> Any:
    """Import litellm only when a litellm model is really used: it is slow and large."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    return litellm
