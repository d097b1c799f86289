"""Model selection: the offline model by default, otherwise any litellm model string.

pydantic-ai speaks the OpenAI chat format; litellm speaks to every provider (OpenAI,
Anthropic, Bedrock through boto3, Ollama, any OpenAI-compatible server). The bridge
(`agent.models.litellm_transport`) is an HTTP transport under pydantic-ai's OpenAI client that hands
each chat request to `litellm.acompletion` in-process, so no LiteLLM proxy server is needed.

What this module decides, without importing litellm: which model a setting builds and
what the turn record says about it (profiles and output modes: agent.models.profiles).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from pydantic_ai.models import Model

from agent.answering.examples import ExampleSource
from agent.models.memory import Memories
from agent.models.offline import offline_model
from agent.models.profiles import model_profile, output_mode_for
from agent.settings import OutputMode, Settings

OFFLINE = "offline"
OUTPUT_MODES: tuple[str, ...] = get_args(OutputMode)


@dataclass(frozen=True)
class ModelInfo:
    """What a turn record keeps about the model that produced it."""

    name: str  # e.g. "litellm:anthropic/claude-sonnet-4-5", "function:clausedesk-offline"
    base_url: str | None
    output_mode: OutputMode


def build_model(
    settings: Settings, examples: ExampleSource | None = None, *, memories: Memories | None = None
) -> Model:
    """The configured model. The offline model learns from `memories` (or a memory of `examples`:
    the governing wording's verified questions) unless its memory is off; any other model is
    reached through litellm."""
    if settings.model == OFFLINE:
        if settings.offline_memory == "off":
            return offline_model(None)
        if memories is None and examples is not None:
            memories = Memories(examples, settings.offline_memory)
        return offline_model(memories)
    return litellm_model(
        settings.model,
        api_base=settings.model_api_base,
        api_key=settings.model_api_key,
        timeout_s=settings.model_timeout_s,
        output=settings.model_output,
    )


def litellm_model(
    model: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    timeout_s: float = 30.0,
    output: OutputMode | None = None,
) -> Model:
    """A pydantic-ai model that reaches `model` (a litellm model string) through litellm."""
    from agent.models.litellm_transport import LiteLLMChatModel

    return LiteLLMChatModel(model, api_base=api_base, api_key=api_key, timeout_s=timeout_s, output=output)


def model_label(model: Model) -> str:
    """The model's true name: `litellm:anthropic/claude-sonnet-4-5`, `function:clausedesk-offline`."""
    return f"{model.system}:{model.model_name}"


def model_info(source: Model | Settings) -> ModelInfo:
    """Name, base URL and output mode of a built model, or of the one settings would build."""
    if isinstance(source, Settings):
        if source.model == OFFLINE:
            return model_info(offline_model())
        mode = output_mode_for(model_profile(source.model), source.model_output)
        return ModelInfo(f"litellm:{source.model}", source.model_api_base, mode)
    from pydantic_ai.models.wrapper import WrapperModel

    while isinstance(source, WrapperModel):  # e.g. the turn's request counter
        source = source.wrapped
    return ModelInfo(
        name=model_label(source),
        base_url=getattr(source, "api_base", None),
        output_mode=getattr(source, "output_mode", "tool"),
    )


def warm_up(settings: Settings) -> None:
    """Import and configure litellm at start-up when a litellm model is configured, so the
    first claimant turn does not pay for it. The offline model never imports it."""
    if settings.model != OFFLINE:
        from agent.models.litellm_transport import import_litellm

        import_litellm()


__all__ = [
    "OUTPUT_MODES",
    "ModelInfo",
    "OutputMode",
    "build_model",
    "litellm_model",
    "model_info",
    "model_label",
    "warm_up",
]
