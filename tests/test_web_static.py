"""The front end's files: complete translations, nothing from elsewhere, all of it packaged."""

from __future__ import annotations

import ast
import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pytest

from hanamikoji.web.server import STATIC

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "ru", "cs", "fr")
FILES = sorted(p for p in STATIC.rglob("*") if p.is_file())


def _flatten(obj: object, prefix: str = "") -> dict[str, str]:
    if isinstance(obj, dict):
        out: dict[str, str] = {}
        for key, value in obj.items():
            out.update(_flatten(value, f"{prefix}.{key}" if prefix else key))
        return out
    return {prefix: json.dumps(obj, ensure_ascii=False)}


PLURALS = {"zero", "one", "two", "few", "many", "other"}  # each language has its own forms


def _strings(language: str) -> dict[str, str]:
    """Every message by key; the plural forms of one message joined under its key."""
    flat = _flatten(json.loads((STATIC / "i18n" / f"{language}.json").read_text("utf-8")))
    out: dict[str, str] = {}
    for key, text in sorted(flat.items()):
        base, _, last = key.rpartition(".")
        if last in PLURALS:
            out[base] = out.get(base, "") + text
        else:
            out[key] = text
    return out


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_word_is_translated(language: str) -> None:
    english = _strings("en")
    other = _strings(language)
    assert set(other) == set(english), (
        f"missing in {language}: {sorted(set(english) - set(other))}; "
        f"extra: {sorted(set(other) - set(english))}"
    )
    for key, text in english.items():
        placeholders = set(re.findall(r"\{(\w+)\}", text))
        assert set(re.findall(r"\{(\w+)\}", other[key])) == placeholders, key
        assert other[key].strip('"'), f"{language}: {key} is empty"


def test_nothing_is_loaded_from_elsewhere() -> None:
    for path in FILES:
        if path.suffix not in (".html", ".js", ".css", ".svg"):
            continue
        text = path.read_text("utf-8")
        for url in re.findall(r"https?://[^\s\"')]+", text):
            assert url.startswith("http://www.w3.org/"), f"{path.name} refers to {url}"


def test_every_referenced_file_exists() -> None:
    for path in FILES:
        if path.suffix not in (".html", ".js", ".css"):
            continue
        text = path.read_text("utf-8")
        for ref in re.findall(r"[\"'(](/static/[^\"')?#]+)", text):
            assert (STATIC / ref.removeprefix("/static/")).is_file(), f"{path.name}: {ref}"
        if path.suffix == ".js":
            for ref in re.findall(r"(?:from|import)\s*\(?\s*[\"'](\.{1,2}/[^\"']+)[\"']", text):
                assert (path.parent / ref).resolve().is_file(), f"{path.name}: {ref}"


def test_the_package_ships_every_front_end_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["hanamikoji"]
    package = STATIC.parent.parent
    for path in FILES:
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(relative, p) for p in patterns), f"not packaged: {relative}"


def _codes_raised(path: Path) -> set[str]:
    """The error codes a server module raises: WebError's first argument, FieldError's third
    (its code; "bad-request" when not given)."""
    codes: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        args = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
        if node.func.id == "WebError" and args and isinstance(args[0], str):
            codes.add(args[0])
        elif node.func.id == "FieldError":
            codes.add(args[2] if len(args) > 2 and isinstance(args[2], str) else "bad-request")
    return codes


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lobby_has_words_for_every_refusal_it_may_get(language: str) -> None:
    """A refusal without words of the page's language showed the server's English sentence
    (a challenge to a disabled player, say) in the middle of a French page."""
    words = json.loads((STATIC / "i18n" / f"{language}.json").read_text("utf-8"))
    lobby = Path(STATIC).parent / "lobby.py"
    told = set(words["lobby"]["errors"]) | set(words["errors"]) | {"declined"}  # bots.declined
    missing = sorted(_codes_raised(lobby) - told)
    assert missing == [], f"{language}: no words for {missing}"
