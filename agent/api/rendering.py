"""The one Jinja environment of the HTML pages (templates/ beside this file)."""

from pathlib import Path

from fastapi.templating import Jinja2Templates

TEMPLATES = Jinja2Templates(directory=Path(__file__).resolve().parent / "templates")
