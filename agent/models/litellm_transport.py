"""litellm in-process under pydantic-ai's OpenAI chat model.

pydantic-ai builds OpenAI-format chat requests; `LiteLLMTransport` answers the OpenAI
client's POST /chat/completions by calling `litellm.acompletion`, which reaches any
provider. One attempt per model request: litellm's retries and the OpenAI client's are
off, every call carries `timeout`, and the turn's deadline bounds the whole turn. A
provider error is raised as litellm's own exception (an `openai` error subclass, which the
OpenAI client passes through), so pydantic-ai maps its status and the turn record keeps
the whole chain.

Imported only when a litellm model is configured: litellm is slow and large to import.
"""

from __future__ import annotations

import json
import logging
import os
from contextlib import AbstractContextManager, nullcontext
from functools import cache
from typing import Any

import httpx2
from openai import AsyncOpenAI
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles import DEFAULT_PROFILE, ModelProfile, merge_profile
from pydantic_ai.providers.litellm import LiteLLMProvider

from agent.models.profiles import model_profile, output_mode_for, profile_with_output
from agent.settings import OutputMode

LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
# Chat parameters pydantic-ai may send that litellm passes on; anything else is refused
# loudly rather than dropped, and litellm's own drop_params stays off.
_CHAT_PARAMS = frozenset(
    {
        "messages",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "response_format",
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "stop",
        "seed",
        "n",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "user",
        "reasoning_effort",
        "extra_headers",
    }
)
# Sent by the OpenAI client for OpenAI's own API; meaningless to other providers.
_CLIENT_ONLY = frozenset({"model", "stream", "stream_options", "store", "prompt_cache_key", "service_tier"})


class LiteLLMChatModel(OpenAIChatModel):
    """An OpenAI chat model whose requests litellm carries, named `litellm:<model string>`."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        output: OutputMode | None = None,
    ):
        profile = model_profile(model)
        self.output_mode: OutputMode = output_mode_for(profile, output)
        self.api_base = api_base
        final = merge_profile(DEFAULT_PROFILE, profile_with_output(profile, self.output_mode))
        transport = LiteLLMTransport(model, api_base=api_base, api_key=api_key, timeout_s=timeout_s)
        client = AsyncOpenAI(
            base_url="http://litellm.invalid/v1",  # never dialled: the transport answers
            api_key="unused",
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport, timeout=timeout_s + 5),
        )
        super().__init__(model, provider=LiteLLMProvider(openai_client=client), profile=_fixed(final))


def _fixed(profile: ModelProfile):
    """A profile callable: ours replaces the provider's default instead of merging into it."""
    return lambda _default: profile


class LiteLLMTransport(httpx2.AsyncBaseTransport):
    """Answers the OpenAI client's POST /chat/completions by calling litellm.acompletion."""

    def __init__(self, model: str, *, api_base: str | None, api_key: str | None, timeout_s: float):
        self.model = model
        self.api_base = api_base
        self.api_key = api_key
        self.timeout_s = timeout_s

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not request.url.path.endswith("/chat/completions"):
            return _error(request, 404, f"unsupported path {request.url.path}")
        body: dict[str, Any] = json.loads(await request.aread())
        if body.get("stream"):
            return _error(request, 400, "streaming is not used by clausedesk")
        unknown = set(body) - _CHAT_PARAMS - _CLIENT_ONLY
        if unknown:
            return _error(request, 400, f"chat parameters not passed to litellm: {sorted(unknown)}")
        params = {k: v for k, v in body.items() if k in _CHAT_PARAMS}
        litellm = import_litellm()
        try:
            with _no_litellm_callbacks():
                response = await litellm.acompletion(
                    model=self.model,
                    api_base=self.api_base,
                    api_key=self.api_key,
                    timeout=self.timeout_s,
                    num_retries=0,
                    max_retries=0,
                    drop_params=False,
                    **params,
                )
        except Exception as exc:
            # Raised as it is: litellm's errors subclass openai's, which the client passes on
            # and pydantic-ai maps by status, keeping this one as the cause.
            _keep_retry_after(exc)
            raise
        return httpx2.Response(200, json=response.model_dump(mode="json"), request=request)


def _no_litellm_callbacks() -> AbstractContextManager[Any]:
    """Run a call without litellm's success/failure callback machinery.

    Each call otherwise queues a callback on litellm's process-wide LoggingWorker, whose
    worker task is bound to one event loop and stranded when another loop calls or the loop
    closes ("Task was destroyed but it is pending", "bound to a different event loop";
    litellm issue #36548, open in 1.110). clausedesk registers no litellm callbacks and
    keeps its own turn records, so nothing is lost. litellm's switch for this is the
    context it uses for its own nested calls; should it move, the concurrency test fails.
    """
    litellm = import_litellm()
    if litellm.callbacks or litellm.success_callback or litellm.failure_callback:
        return nullcontext()  # someone configured litellm callbacks: keep them working
    from litellm._internal_context import internal_sub_call

    return internal_sub_call()


def _keep_retry_after(exc: Exception) -> None:
    """litellm keeps the provider's headers aside; put Retry-After back on the response
    pydantic-ai reads, so a 429 reaches the turn with its retry_after."""
    provider_headers = getattr(exc, "litellm_response_headers", None)
    response = getattr(exc, "response", None)
    if not provider_headers or response is None:
        return
    for name in ("retry-after", "retry-after-ms"):
        value = provider_headers.get(name)
        if value is not None and name not in response.headers:
            response.headers[name] = value


def _error(request: httpx2.Request, status: int, message: str) -> httpx2.Response:
    return httpx2.Response(
        status, json={"error": {"message": message, "type": "clausedesk_transport"}}, request=request
    )


@cache
def import_litellm() -> Any:
    """Import litellm once, quiet: no banners or feedback prints, no price-map download,
    its loggers through `logging` at WARNING, no success-callback logging worker."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "WARNING")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.drop_params = False
    litellm.num_retries = None
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = True
    return litellm
