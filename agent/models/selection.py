"""Model selection: the offline model by default, otherwise any litellm model string.

pydantic-ai speaks the OpenAI chat format; litellm speaks to every provider (OpenAI,
Anthropic, Bedrock through boto3, Ollama, any OpenAI-compatible server). The bridge
(`agent.models.litellm_transport`) is an HTTP transport under pydantic-ai's OpenAI client that hands
each chat request to `litellm.acompletion` in-process, so no LiteLLM proxy server is needed.

What this module decides, without importing litellm: the pydantic-ai model profile for a
litellm model string (by its vendor prefix), the structured output mode that fits it, and
what the turn record says about the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

from pydantic_ai.models import Model

from agent.models.offline import offline_model
from agent.settings import OutputMode, Settings

if TYPE_CHECKING:
    from pydantic_ai.profiles import ModelProfile

OFFLINE = "offline"
OUTPUT_MODES: tuple[str, ...] = get_args(OutputMode)

# litellm prefixes for OpenAI-compatible servers that host other vendors' weights: the
# profile comes from the model name after the prefix, the way pydantic-ai's own Ollama and
# vLLM providers read it.
_OLLAMA = ("ollama", "ollama_chat")
_VLLM = ("hosted_vllm", "vllm")
_LOCAL_SERVERS = ("lm_studio", "llamafile", "openai_like", "custom_openai")
# Gateways whose model names are themselves `vendor/model`.
_GATEWAYS = ("openrouter", "together_ai", "deepinfra", "fireworks_ai", "huggingface", "nvidia_nim", "novita")


@dataclass(frozen=True)
class ModelInfo:
    """What a turn record keeps about the model that produced it."""

    name: str  # e.g. "litellm:anthropic/claude-sonnet-4-5", "function:clausedesk-offline"
    base_url: str | None
    output_mode: OutputMode


def build_model(settings: Settings) -> Model:
    if settings.model == OFFLINE:
        return offline_model()
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


def model_profile(model: str) -> ModelProfile:
    """pydantic-ai's profile for a litellm model string, chosen by its vendor prefix.

    Hosted vendors (`openai/`, `anthropic/`, `mistral/`, …) get their family profile as
    pydantic-ai's LiteLLMProvider resolves it; `bedrock/` IDs are split into the vendor
    they carry (`bedrock/us.anthropic.claude-…` is a Claude model); Ollama and vLLM get the
    profiles of pydantic-ai's own providers for them.
    """
    from pydantic_ai.profiles import merge_profile
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer, OpenAIModelProfile
    from pydantic_ai.providers.litellm import LiteLLMProvider

    prefix, _, name = model.partition("/")
    prefix = prefix.lower()
    if prefix in _OLLAMA:
        from pydantic_ai.providers.ollama import OllamaProvider

        profile = OllamaProvider.model_profile(name)
    elif prefix in _VLLM:
        from pydantic_ai.providers.vllm import VLLMProvider

        profile = VLLMProvider.model_profile(name)
    elif prefix == "bedrock":
        from pydantic_ai.providers._bedrock_model_names import split_bedrock_model_id

        # litellm allows a route before the ID: bedrock/converse/…, bedrock/invoke/…
        vendor, bare = split_bedrock_model_id(name.rpartition("/")[2])
        profile = LiteLLMProvider.model_profile(f"{vendor}/{bare}" if vendor else bare)
    elif prefix in _LOCAL_SERVERS or prefix in _GATEWAYS:
        profile = LiteLLMProvider.model_profile(name)
    else:
        profile = LiteLLMProvider.model_profile(model)
    # Whatever the vendor, the request leaves as OpenAI chat format for litellm to translate.
    return merge_profile(OpenAIModelProfile(json_schema_transformer=OpenAIJsonSchemaTransformer), profile)


def output_mode_for(profile: ModelProfile, setting: OutputMode | None = None) -> OutputMode:
    """Tool output where the model accepts a forced tool choice, else native JSON-schema
    output where it supports it, else prompted JSON; `setting` overrides all of that."""
    if setting is not None:
        return setting
    if profile.get("supports_forced_tool_choice", True):
        return "tool"
    if profile.get("supports_json_schema_output", False):
        return "native"
    return "prompted"


def profile_with_output(profile: ModelProfile, mode: OutputMode) -> ModelProfile:
    """The profile that makes pydantic-ai use `mode` for the agent's structured output.

    The claimant agent keeps `output_type=Selection` (its output validator forbids a
    per-run `output_type` in pydantic-ai 2.x); the model's profile picks the mode.
    """
    from pydantic_ai.profiles import ModelProfile, merge_profile

    override = ModelProfile(default_structured_output_mode=mode)
    if mode == "native":
        override["supports_json_schema_output"] = True  # chosen by setting: the operator says so
    return merge_profile(profile, override)


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
    "model_profile",
    "output_mode_for",
    "warm_up",
]
