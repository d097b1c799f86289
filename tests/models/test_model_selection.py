"""Which model, profile and output mode a model string gets, and what the record calls it.

Profile resolution needs no network: these build models without calling them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic_ai.models.wrapper import WrapperModel

from agent.models.selection import (
    build_model,
    litellm_model,
    model_info,
    model_label,
    model_profile,
    output_mode_for,
)
from agent.settings import Settings

NAMES = [
    ("openai/gpt-4o-mini", "litellm:openai/gpt-4o-mini"),
    ("anthropic/claude-sonnet-4-5", "litellm:anthropic/claude-sonnet-4-5"),
    (
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "litellm:bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ),
    ("ollama/qwen2.5:7b", "litellm:ollama/qwen2.5:7b"),
    ("ollama_chat/llama3.1", "litellm:ollama_chat/llama3.1"),
    ("hosted_vllm/Qwen/Qwen2.5-7B-Instruct", "litellm:hosted_vllm/Qwen/Qwen2.5-7B-Instruct"),
]


@pytest.mark.parametrize(("model", "label"), NAMES)
def test_the_turn_record_names_the_model_string_as_configured(model: str, label: str) -> None:
    built = build_model(Settings(model=model, model_api_base="http://127.0.0.1:9/v1"))
    assert model_label(built) == label
    info = model_info(built)
    assert info.name == label and info.base_url == "http://127.0.0.1:9/v1"
    assert model_info(Settings(model=model, model_api_base="http://127.0.0.1:9/v1")) == info
    assert model_info(WrapperModel(built)) == info


def test_the_offline_model_keeps_its_name_and_tool_output() -> None:
    info = model_info(build_model(Settings()))
    assert (info.name, info.base_url, info.output_mode) == ("function:clausedesk-offline", None, "tool")
    assert model_info(Settings()) == info


def test_each_vendor_prefix_gets_its_own_family_profile() -> None:
    from pydantic_ai.profiles import InlineDefsJsonSchemaTransformer
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    anthropic = model_profile("anthropic/claude-sonnet-4-5")
    openai = model_profile("openai/gpt-4o-mini")
    bedrock_claude = model_profile("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    ollama_qwen = model_profile("ollama/qwen2.5:7b")
    # Claude's own profile (thinking tags, forced tool choice), also when it comes through Bedrock.
    assert anthropic["thinking_tags"] == ("<thinking>", "</thinking>")
    assert bedrock_claude["thinking_tags"] == anthropic["thinking_tags"]
    assert bedrock_claude.get("supports_forced_tool_choice", True)
    assert "thinking_tags" not in openai
    # Ollama: pydantic-ai's Ollama profile, on Qwen's family profile.
    assert ollama_qwen["json_schema_transformer"] is InlineDefsJsonSchemaTransformer
    assert ollama_qwen["openai_supports_strict_tool_definition"] is False
    assert openai["json_schema_transformer"] is OpenAIJsonSchemaTransformer


def test_the_built_model_uses_the_resolved_profile_not_openais() -> None:
    built = litellm_model("anthropic/claude-sonnet-4-5")
    assert built.profile["thinking_tags"] == ("<thinking>", "</thinking>")
    assert built.system == "litellm"


def test_output_mode_follows_the_profile_unless_set() -> None:
    assert output_mode_for({}) == "tool"
    no_forcing = {"supports_forced_tool_choice": False}
    assert output_mode_for({**no_forcing, "supports_json_schema_output": True}) == "native"
    assert output_mode_for(no_forcing) == "prompted"
    assert output_mode_for({}, "prompted") == "prompted"
    # Qwen3-Coder rejects a forced tool choice on most hosts: its profile says so.
    assert model_info(litellm_model("openrouter/qwen/qwen-3-coder")).output_mode == "prompted"
    assert model_info(litellm_model("anthropic/claude-sonnet-4-5")).output_mode == "tool"


def test_the_output_setting_reaches_the_model_profile(monkeypatch) -> None:
    monkeypatch.setenv("CLAUSEDESK_MODEL", "hosted_vllm/qwen")
    monkeypatch.setenv("CLAUSEDESK_MODEL_OUTPUT", "prompted")
    settings = Settings()
    built = build_model(settings)
    assert model_info(built).output_mode == "prompted" == model_info(settings).output_mode
    assert built.profile["default_structured_output_mode"] == "prompted"


def test_an_unknown_output_setting_is_refused_with_its_choices(monkeypatch) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv("CLAUSEDESK_MODEL_OUTPUT", "json")
    with pytest.raises(ValidationError, match="'tool', 'native' or 'prompted'"):
        Settings()


def test_the_offline_path_never_imports_litellm(sqlite_url) -> None:
    code = (
        "import sys; from agent.api.app import create_app; "
        "from agent.models.selection import build_model; "
        "from agent.settings import Settings; from knowledge.store import ObjectStore; "
        f"s = Settings(database_url='{sqlite_url}'); "
        "create_app(s, store=ObjectStore(s.store)); "
        "m = build_model(s); assert m.model_name == 'clausedesk-offline', m.model_name; "
        "assert 'litellm' not in sys.modules, 'litellm was imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_configured_litellm_model_is_imported_at_start_up_quietly(sqlite_url) -> None:
    code = (
        "import sys, time; from agent.api.app import create_app; from agent.settings import Settings; "
        "from knowledge.store import ObjectStore; "
        f"s = Settings(database_url='{sqlite_url}', model='hosted_vllm/qwen', "
        "model_api_base='http://127.0.0.1:9/v1'); "
        "create_app(s, store=ObjectStore(s.store)); "
        "assert 'litellm' in sys.modules, 'litellm was not imported at start-up'; "
        "import litellm, logging; assert litellm.suppress_debug_info; "
        "assert logging.getLogger('LiteLLM').getEffectiveLevel() == logging.WARNING"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "", done.stdout  # no banner, no blank lines
