"""Request and response types shared by the claimant and staff routes."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

# Characters no text may hold: C0 and C1 controls except tab, line feed and carriage return
# (normalised to a line feed), and lone surrogates, which no database can store.
CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff"
# Characters that show nothing: whitespace, zero-width and format characters, fillers.
INVISIBLE = (
    r"\t\n\r\x20\xa0\xad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180e\u2000-\u200f"
    r"\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0"
)
_CONTROL = re.compile(f"[{CONTROL}]")
_VISIBLE = re.compile(f"[^{CONTROL}{INVISIBLE}]")
# The same rules as JSON Schema patterns, so the published schema and the server agree.
PLAIN_PATTERN = f"^[^{CONTROL}]*$"
NON_BLANK_PATTERN = f"^[^{CONTROL}]*[^{CONTROL}{INVISIBLE}][^{CONTROL}]*$"


def control_problem(value: str) -> str | None:
    """A clear reason when the text holds a character that is refused everywhere."""
    found = _CONTROL.search(value)
    if found is None:
        return None
    char = found.group()
    name = unicodedata.name(char, "control character")
    return f"contains U+{ord(char):04X} ({name.lower()}), which is not allowed in text"


def is_blank(value: str) -> bool:
    return _VISIBLE.search(value) is None


def clean(value: str) -> str:
    """Line breaks as \\n, surrounding whitespace and invisible characters removed."""
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return re.sub(f"^[{INVISIBLE}]+|[{INVISIBLE}]+$", "", value)


def non_blank(message: str, max_length: int, description: str) -> object:
    """Text that must say something: refused with `message` when blank or only invisible
    characters, and with a clear reason when it holds control characters."""

    def check(value: str) -> str:
        problem = control_problem(value)
        if problem:
            raise ValueError(problem)
        if is_blank(value):
            raise ValueError(message)
        return clean(value)

    return Annotated[
        str,
        # minLength is published but checked by `check`, so "" gets the blank message.
        Field(
            max_length=max_length,
            description=description,
            json_schema_extra={"minLength": 1, "pattern": NON_BLANK_PATTERN},
        ),
        AfterValidator(check),
    ]


def plain_text(max_length: int, description: str = "", *, min_length: int = 0) -> object:
    """Any text without control characters."""

    def check(value: str) -> str:
        problem = control_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    return Annotated[
        str,
        Field(
            min_length=min_length,
            max_length=max_length,
            description=description or None,
            json_schema_extra={"pattern": PLAIN_PATTERN},
        ),
        AfterValidator(check),
    ]


def url_part(max_length: int, description: str) -> dict[str, Any]:
    """Path and query text: control characters never pass (the request guard answers 400),
    and the published schema says so."""
    return {
        "max_length": max_length,
        "description": description,
        "json_schema_extra": {"pattern": PLAIN_PATTERN},
    }


class ErrorOut(BaseModel):
    """Every error the API sends: one human-readable sentence saying what was wrong."""

    detail: str


_ERRORS = {
    400: "The request could not be read (for example a control character in the URL)",
    401: "Missing or unknown access token",
    403: "Not allowed (for example an expired form)",
    404: "No such claim or item for this token",
    409: "The claim or item is not in a state that allows this",
    413: "The request body is larger than the server accepts",
    422: "The request does not satisfy the schema or the rules; detail says what was wrong",
    429: "Too many attempts; retry after the Retry-After header's seconds",
    503: "A service the request needs is unavailable; try again",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` for these error statuses, all with the one error body."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        out[code] = {"model": ErrorOut, "description": _ERRORS[code]}
        if code == 429:
            out[code]["headers"] = {
                "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
            }
    return out


class HealthOut(BaseModel):
    database: str
    knowledge: str
    model: str
    # Where throttling counts are kept; Redis being down degrades it, it does not fail health.
    throttling: str
    # CLAUSEDESK_INSTANCE: the name this process was started with, if any.
    instance: str | None = None


class CitationOut(BaseModel):
    """A citation on the wire, built from agent.boundary.citation.Citation by its attributes: the
    whole clause a staff answer keeps with a citation is not part of it (`staff_answer` carries it)."""

    model_config = ConfigDict(from_attributes=True)

    clause_id: str
    title: str
    version: str
    quote: str


class MessageOut(BaseModel):
    """One message of a claim's conversation."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    role: str
    body: str
    created_at: datetime
    turn_id: str | None
    waiting_list_reference: str | None
    author: str | None


def _whole_number(value: Any) -> Any:
    """A query number is digits: "5.0" reads as 5 to pydantic, yet the schema says integer.
    What is no number at all is left to pydantic's own message."""
    if isinstance(value, str) and not re.fullmatch(r"-?\d+", value.strip()):
        try:
            float(value)
        except ValueError:
            return value
        raise ValueError("must be a whole number, written in digits")
    return value


# An integer in a URL's query: refused unless written as digits, as the published schema says.
QueryInt = Annotated[int, BeforeValidator(_whole_number)]


Shape = TypeVar("Shape", bound=BaseModel)


def shape_of(shape: type[Shape], row: object, **computed: Any) -> Shape:
    """A response shape from a row (or dataclass) whose attributes carry most of its fields under
    the same names, with the fields computed elsewhere given by name. A shape whose fields all
    line up is `model_validate`d from the row directly (`from_attributes`). A field the row lacks
    takes the shape's default (a required one fails validation, naming it)."""
    own = {
        name: getattr(row, name) for name in shape.model_fields if name not in computed and hasattr(row, name)
    }
    return shape.model_validate({**own, **computed})
