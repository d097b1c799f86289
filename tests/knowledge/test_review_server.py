"""The import review page takes orders from its owner's browser only: loopback Host, the
secret key of its printed address (then a cookie), the form's CSRF token and a same-origin
Origin on every state-changing request, and redirects only to its own paths. Through HTTP
against the real app, and the command's own output naming the port and the address."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from knowledge.importing.pipeline import build, write
from knowledge.importing.review.app import create_app
from knowledge.importing.review.guard import COOKIE
from knowledge.importing.review.state import open_review
from knowledge.importing.sample import SAMPLE
from tests.knowledge import own_wordings
from tests.support import ROOT, LiveServer, serve


@pytest.fixture(scope="module")
def draft(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("review") / "drafts" / "travel" / "2026.1.md"
    return write(build(SAMPLE, "travel", "2026.1", "TRV", None, None), out)[0]


@pytest.fixture(scope="module")
def server(draft: Path):  # type: ignore[no-untyped-def]
    live = serve(create_app(draft))
    yield live
    live.stop()


def signed_in(server: LiveServer) -> tuple[httpx.Client, str]:
    """A client that opened the printed address, and the CSRF token of the page it got."""
    client = httpx.Client(base_url=server.url, timeout=30)
    first = client.get(server.app.state.entry)
    assert first.status_code == 303 and first.headers["location"] == "/"
    assert "key=" not in first.headers["location"] and COOKIE in client.cookies
    page = client.get("/")
    assert page.status_code == 200
    # its own estimate: the open decisions and words / 200 + 10 s a decision
    estimate = open_review(Path(server.app.state.draft)).estimate()
    assert f"{estimate['open']} open; about {estimate['minutes']} minutes in all" in page.text
    return client, re.search(r'name="csrf" value="([0-9a-f]+)"', page.text)[1]  # type: ignore[index]


def decisions(draft: Path) -> dict:
    return open_review(draft).decisions


def test_without_the_key_nothing_is_shown_or_changed(server: LiveServer, draft: Path) -> None:
    bare = httpx.Client(base_url=server.url, timeout=30)
    assert bare.get("/").status_code == 403
    assert bare.get("/matrix").status_code == 403
    refused = bare.post("/removals/accept", data={})
    assert refused.status_code == 403 and "printed" in refused.text
    assert bare.get("/?key=guessed").status_code == 403
    assert "removals" not in decisions(draft)


def test_a_foreign_page_cannot_drive_it_even_in_the_owners_browser(server: LiveServer, draft: Path) -> None:
    client, csrf = signed_in(server)
    # A page on another origin posting in the owner's browser (the cookie goes with it).
    foreign = client.post("/removals/accept", data={"csrf": csrf}, headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403 and "another site" in foreign.text
    cross = client.post("/removals/accept", data={"csrf": csrf}, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    # Without the form's token (a form that does not come from the page itself).
    tokenless = client.post("/removals/accept", data={}, headers={"Origin": server.url})
    assert tokenless.status_code == 403 and "CSRF" in tokenless.text
    unit = open_review(draft).report["units"][0]["id"]
    retitle = client.post(
        f"/unit/{unit}", data={"action": "save", "title": "Taken over", "applies": "", "csrf": "0" * 64}
    )
    assert retitle.status_code == 403
    assert "removals" not in decisions(draft) and unit not in decisions(draft).get("edits", {})
    # A foreign Host (DNS rebinding onto 127.0.0.1) is not served, key or not.
    rebound = client.get("/", headers={"Host": "evil.example:80"})
    assert rebound.status_code == 403


def test_the_owner_decides_and_is_sent_back_only_within_the_page(server: LiveServer, draft: Path) -> None:
    client, csrf = signed_in(server)
    accepted = client.post("/removals/accept", data={"csrf": csrf}, headers={"Origin": server.url})
    assert accepted.status_code == 303 and "removals" in decisions(draft)
    unit = open_review(draft).report["units"][0]["id"]
    off_site = client.post(
        f"/unit/{unit}",
        data={
            "action": "save",
            "title": "The owner's title",
            "applies": "",
            "back": "//evil.example/x",
            "csrf": csrf,
        },
    )
    assert off_site.status_code == 303 and off_site.headers["location"] == "/"
    assert decisions(draft)["edits"][unit]["title"] == "The owner's title"


def test_the_command_prints_its_port_and_its_keyed_address(draft: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "knowledge", "review", str(draft), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        said = proc.stdout.readline() + proc.stdout.readline()
        assert f"on port {port}" in said
        address = re.search(r"http://127\.0\.0\.1:(\d+)/\?key=(\S+)", said)
        assert address and int(address[1]) == port
        client = httpx.Client(timeout=30)
        for _ in range(100):
            try:
                opened = client.get(address[0], follow_redirects=True)
                break
            except httpx.ConnectError:
                import time

                time.sleep(0.1)
        assert opened.status_code == 200 and "decisions made" in opened.text
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=30).status_code == 403
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def own_draft(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("own-review")
    source = own_wordings.render_motor_pdf(folder / "harbour-motor.pdf")
    return write(
        build(source, "motor", "2026.1", "MTR", None, None), folder / "drafts" / "motor" / "2026.1.md"
    )[0]


def test_the_owner_mends_the_table_in_the_page(own_draft: Path) -> None:
    live = serve(create_app(own_draft))
    try:
        client, csrf = signed_in(live)
        review = open_review(own_draft)
        levels = review.levels()
        rows = review.report["matrix"]["rows"]
        units = {
            u["title"].split(": ")[-2] if ": " in u["title"] else u["title"]: u
            for u in review.report["units"]
        }
        seats = rows.index("Child seats – $650 per seat")
        seat_unit = review.report["matrix"]["reached"][rows[seats]]
        assert len(seat_unit) == 1
        # the row edited: Third Party Fire & Theft has child seats too
        cells = {f"cell{n}": v for n, v in enumerate(["included", "included", "not included"])}
        edited = client.post(
            f"/matrix/{seats}/edit",
            data={
                "csrf": csrf,
                "action": "save",
                "name": "Child seats – $650 per seat",
                "kind": "cover",
                "units": seat_unit[0],
                **cells,
            },
        )
        assert edited.status_code == 303 and edited.headers["location"] == "/matrix"
        # a row the import missed, added with the unit it applies to
        rescue = next(u["id"] for u in review.report["units"] if u["title"].startswith("Roadside rescue"))
        added = client.post(
            "/matrix/add",
            data={
                "csrf": csrf,
                "name": "Roadside rescue",
                "kind": "cover",
                "units": rescue,
                **{f"cell{n}": "included" for n in range(len(levels))},
            },
        )
        assert added.status_code == 303
        wrong = client.post(
            "/matrix/add", data={"csrf": csrf, "name": "Towing", "kind": "cover", "units": "MTR-XXX-99"}
        )
        assert "no unit MTR-XXX-99" in client.get(wrong.headers["location"]).text
        # a row deleted, a level renamed
        assert (
            client.post(
                f"/matrix/{rows.index('Wear and tear')}/edit", data={"csrf": csrf, "action": "delete"}
            ).status_code
            == 303
        )
        renamed = client.post(
            "/levels/rename", data={"csrf": csrf, "old": "Third Party Only", "new": "Third Party"}
        )
        assert renamed.status_code == 303
        page = client.get("/matrix").text
        assert "Third Party Only → " in page and 'value="Third Party"' in page
        written = client.post("/write", data={"csrf": csrf})
        assert written.status_code == 200
    finally:
        live.stop()
    text = own_draft.read_text()
    assert f"## {seat_unit[0]} - " in text
    after = text.split(f"## {seat_unit[0]} - ", 1)[1].split("\n")[1]
    assert after == "<!-- applies: plans=Comprehensive|Third Party Fire & Theft -->"
    after = text.split(f"## {rescue} - ", 1)[1].split("\n")[1]
    assert not after.startswith("<!-- applies: plans=")  # every level: no plans line, no option
    assert "plans: Comprehensive | Third Party Fire & Theft | Third Party\n" in text
    assert not re.search(
        r"(?m)^(<!-- applies: plans=|plans: ).*Third Party Only", text
    )  # the printed table keeps it
    state = open_review(own_draft).decisions
    assert state["matrix_edits"]["Wear and tear"] == {"deleted": True}
    assert units  # the report's units were read


def test_the_owner_corrects_a_typo_and_a_kind_in_the_page(tmp_path: Path) -> None:
    drafted = write(build(SAMPLE, "travel", "2026.1", "TRV", None, None), tmp_path / "travel" / "2026.1.md")[
        0
    ]
    live = serve(create_app(drafted))
    try:
        client, csrf = signed_in(live)
        review = open_review(drafted)
        unit = next(u["id"] for u in review.report["units"] if len(review.body_of(u["id"]).split()) > 20)
        body = review.body_of(unit)
        first = body.split()[0]
        typo = body.replace(first, first + "x", 1)  # as if the import had read a typo the page lacks
        assert client.get(f"/unit/{unit}").status_code == 200

        # A few words mended: kept beside what was read.
        mended = client.post(f"/unit/{unit}", data={"csrf": csrf, "action": "text", "text": typo})
        assert mended.status_code == 303
        assert decisions(drafted)["text_edits"][unit] == {
            "from": body,
            "to": typo,
            "at": decisions(drafted)["text_edits"][unit]["at"],
        }
        # Rewriting the text is not a typo: refused, saying why and what to do.
        rewritten = client.post(
            f"/unit/{unit}", data={"csrf": csrf, "action": "text", "text": "Something else entirely. " * 6}
        )
        page = client.get(rewritten.headers["location"]).text
        assert "the page corrects typos" in page and "import failure" in page
        assert decisions(drafted)["text_edits"][unit]["to"] == typo

        # The kind: a new ID of that kind, everywhere the draft names it.
        code, kind, _ = unit.split("-")
        new_kind = "EXC" if kind != "EXC" else "CON"
        assert (
            client.post(f"/unit/{unit}", data={"csrf": csrf, "action": "kind", "kind": new_kind}).status_code
            == 303
        )
        bad = client.post(f"/unit/{unit}", data={"csrf": csrf, "action": "kind", "kind": "XYZ"})
        assert "the kind is one of" in client.get(bad.headers["location"]).text
        assert client.post("/write", data={"csrf": csrf}).status_code == 200
    finally:
        live.stop()
    text = drafted.read_text()
    assert not re.search(rf"\b{unit}\b", text)
    assert typo in text and body not in text
    section = text[: text.index(typo)].rsplit("\n## ", 1)[1]  # the unit now holding the corrected text
    assert section.startswith(f"{code}-{new_kind}-"), section[:80]
