"""pydantic-ai model profiles for litellm model strings, and the structured output mode
each profile supports. Pure functions: no litellm import."""

from __future__ import annotations

from pydantic_ai.profiles import ModelProfile

from agent.settings import OutputMode

# litellm prefixes for OpenAI-compatible servers that host other vendors' weights: the
# profile comes from the model name after the prefix, the way pydantic-ai's own Ollama and
# vLLM providers read it.
_OLLAMA = ("ollama", "ollama_chat")
_VLLM = ("hosted_vllm", "vllm")
_LOCAL_SERVERS = ("lm_studio", "llamafile", "openai_like", "custom_openai")
# Gateways whose model names are themselves `vendor/model`.
_GATEWAYS = ("openrouter", "together_ai", "deepinfra", "fireworks_ai", "huggingface", "nvidia_nim", "novita")


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
