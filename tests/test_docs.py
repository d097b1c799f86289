"""The README and docs/ cannot go stale silently: their links resolve, every command they name
exists with the options they give it, and the blocks marked to run (```bash run) run against
the test system and succeed."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agent import cli as agent_cli
from agent.cli import wording as wording_cli
from tests.conftest import REPO
from tests.wording_cli.test_cli import knowledge_env

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
PARSERS = {"agent": agent_cli.parser, "knowledge": wording_cli.parser}
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
COMMAND = re.compile(r"python -m (agent|knowledge) ([a-z][a-z-]*)((?: +(?:--?[a-z][a-z-]*|[^\s`|;&]+))*)")
RUN_BLOCK = re.compile(r"```bash run\n(.*?)```", re.S)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    found = {s for a in parser._actions for s in a.option_strings}
    for sub in _subcommands(parser).values():  # `knowledge evidence load` style nesting
        found |= _options(sub)
    return found


def test_the_readme_is_read_in_minutes() -> None:
    assert len((REPO / "README.md").read_text().splitlines()) <= 150


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves(page: Path) -> None:
    missing = [
        target
        for target in LINK.findall(page.read_text())
        if not target.startswith(("http://", "https://", "mailto:")) and not (page.parent / target).exists()
    ]
    assert not missing, f"{page.name} links to files that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_named_exists_with_its_options(page: Path) -> None:
    wrong = []
    for program, name, rest in COMMAND.findall(page.read_text()):
        subcommands = _subcommands(PARSERS[program]())
        if name not in subcommands:
            wrong.append(f"python -m {program} {name}: no such command")
            continue
        known = _options(subcommands[name])
        for option in re.findall(r"(?<!\S)(--[a-z][a-z-]*)", rest):
            if option not in known:
                wrong.append(f"python -m {program} {name} {option}: no such option")
    assert not wrong, f"{page.name}: " + "; ".join(wrong)


def _run_blocks() -> list[tuple[str, str]]:
    return [
        (page.name, line.strip())
        for page in PAGES
        for block in RUN_BLOCK.findall(page.read_text())
        for line in block.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_the_docs_mark_commands_to_run() -> None:
    assert len(_run_blocks()) >= 3


@pytest.mark.parametrize("page,command", _run_blocks())
def test_a_read_only_command_runs_against_the_test_system(
    page: str, command: str, s3_server, corpus_store, database_url: str
) -> None:
    argv = shlex.split(command)
    assert argv[:2] == ["python", "-m"], f"{page}: a run block holds python -m commands only: {command}"
    done = subprocess.run(
        [sys.executable, *argv[1:]],
        cwd=REPO,
        env=knowledge_env(s3_server, corpus_store.bucket, database_url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{page}: `{command}` failed: {done.stderr[-1500:]}"
    assert done.stdout.strip(), f"{page}: `{command}` printed nothing"


def test_every_setting_is_in_the_configuration_table() -> None:
    from agent.settings import Settings
    from knowledge.settings import ImportSettings, StoreSettings

    table = (REPO / "docs" / "configuration.md").read_text()
    missing = []
    for settings in (Settings, StoreSettings, ImportSettings):
        prefix = settings.model_config.get("env_prefix", "")
        for name, field in settings.model_fields.items():
            if field.exclude or name == "store":
                continue
            variable = (prefix + name).upper()
            if variable not in table:
                missing.append(variable)
    assert not missing, f"docs/configuration.md does not name: {missing}"


# Names the docs and docstrings point a reader to ---------------------------------------------

SOURCES = sorted([*(REPO / "agent").rglob("*.py"), *(REPO / "knowledge").rglob("*.py")])
PATH = re.compile(
    r"`((?:agent|knowledge|tests|corpus|policies|docs|\.ci)/[\w./-]*|[\w-]+\.(?:sh|toml|yaml|yml))`"
)
DOTTED = re.compile(r"(?<![\w./])((?:agent|knowledge)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def _resolves(dotted: str) -> bool:
    """A module, or a name defined in one (`agent.answering.gate.gate`, `Class.method`)."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def _prose(path: Path) -> str:
    """What a reader reads of a source file: its comments and docstrings, not its imports or code."""
    import ast
    import io
    import tokenize

    text = path.read_text(encoding="utf-8")
    found = [
        t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(ast.get_docstring(node) or "")
    return "\n".join(found)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_backticked_path_exists(page: Path) -> None:
    missing = sorted(
        {
            p
            for p in PATH.findall(page.read_text())
            if "{" not in p and "*" not in p and not (REPO / p).exists() and not (page.parent / p).exists()
        }
    )
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_dotted_name_in_the_docs_resolves(page: Path) -> None:
    names = {n.rstrip(".") for n in DOTTED.findall(page.read_text())}
    missing = sorted(n for n in names if not _resolves(n))
    assert not missing, f"{page.name} names modules or objects that do not exist: {missing}"


def test_every_dotted_name_in_docstrings_and_comments_resolves() -> None:
    missing = sorted(
        {
            f"{path.relative_to(REPO)}: {n}"
            for path in SOURCES
            for n in {m.rstrip(".") for m in DOTTED.findall(_prose(path))}
            if not _resolves(n)
        }
    )
    assert not missing, "docstrings and comments name what does not exist: " + "; ".join(missing)
