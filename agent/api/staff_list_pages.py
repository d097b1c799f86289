"""The waiting list's pages for staff: the queue and the content gaps."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from agent.api.deps import SessionDep
from agent.api.staff import csv_response, gaps_of
from agent.api.staff_web import PAGE_SIZE, VisitorDep, page_start, render
from agent.staff import waiting_list
from agent.staff.content_gaps import content_gaps
from agent.staff.routed_share import routed_share
from agent.staff.waiting_list import REASONS, STATUS_FILTERS

router = APIRouter(prefix="/staff", include_in_schema=False)


@router.get("", response_class=HTMLResponse)
def queue(
    request: Request,
    visitor: VisitorDep,
    db: SessionDep,
    status: str = "waiting",
    reason: str = "",
    family: str = "",
    offset: str = "0",
) -> HTMLResponse:
    status = status if status in STATUS_FILTERS else "waiting"
    start = page_start(offset)
    page = waiting_list.list_items(
        db,
        status=status,
        reason=reason or None,
        family=family or None,
        limit=PAGE_SIZE,
        offset=start,
    )
    filters = {"status": status, "reason": reason, "family": family}

    def page_link(to: int) -> str:
        return "/staff?" + urlencode({**filters, "offset": to})

    context = {
        "page": page,
        "filters": filters,
        "statuses": list(STATUS_FILTERS),
        "reasons": REASONS,
        "families": sorted({*page.by_family, *(f for f in [family] if f)}),
        "staff_names": waiting_list.staff_names(db),
        "previous": page_link(max(page.offset - PAGE_SIZE, 0)) if page.offset > 0 else None,
        "next": page_link(page.offset + PAGE_SIZE) if page.offset + PAGE_SIZE < page.total else None,
    }
    return render(request, "staff_queue.html", context, visitor)


@router.get("/gaps", response_class=HTMLResponse)
def gaps(request: Request, visitor: VisitorDep, db: SessionDep) -> HTMLResponse:
    gaps = gaps_of(content_gaps(db), routed_share(db))
    return render(request, "staff_gaps.html", {"gaps": gaps}, visitor)


@router.get("/gaps/routed-share.csv")
def gaps_csv(visitor: VisitorDep, db: SessionDep) -> Response:
    return csv_response(routed_share(db))
