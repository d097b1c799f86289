"""Staff accounts from the command line (`python -m agent staff …`): add, list, disable,
and list or revoke a user's sessions. Passwords are read, hashed and never printed."""

from __future__ import annotations

import argparse
import getpass
import sys

from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from agent.db.tables import StaffUser
from agent.security import hash_password, hash_token, new_token
from agent.settings import Settings
from agent.staff import sessions as staff_sessions

MIN_PASSWORD = 12
ROLES = ("handler", "policy_owner", "supervisor")


class StaffAdminError(Exception):
    """A refusal the command prints as one line and exits non-zero for."""


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass("Password: ")
        if getpass.getpass("Repeat password: ") != password:
            raise StaffAdminError("the passwords differ")
    if len(password) < MIN_PASSWORD:
        raise StaffAdminError(f"the password must have at least {MIN_PASSWORD} characters")
    return password


def add(sessions: sessionmaker, username: str, display_name: str, password: str, role: str) -> None:
    if not username or len(username) > 60 or not username.isprintable() or " " in username:
        raise StaffAdminError("a username is 1 to 60 printable characters without spaces")
    with sessions.begin() as db:
        if db.get(StaffUser, username) is not None:
            raise StaffAdminError(f"staff user {username} exists already")
        user = StaffUser(
            username=username,
            display_name=display_name,
            password_hash=hash_password(password),
            # No standing API token: the user logs in (page or POST /staff/api/login) for a session.
            token_hash=hash_token(new_token()),
            active=True,
            roles=[role],
        )
        db.add(user)


def disable(sessions: sessionmaker, username: str) -> int:
    """Disable the account and end all its sessions; returns how many were ended."""
    with sessions() as db:
        user = db.get(StaffUser, username)
        if user is None:
            raise StaffAdminError(f"no staff user {username}")
        user.active = False
        db.commit()
        return staff_sessions.revoke_all(db, username)


def run(args: argparse.Namespace, settings: Settings, sessions: sessionmaker) -> int:
    try:
        return _run(args, settings, sessions)
    except StaffAdminError as exc:
        print(f"clausedesk staff: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, settings: Settings, sessions: sessionmaker) -> int:
    if args.staff_command == "add":
        password = read_password(args.password_stdin)
        add(sessions, args.username, args.name or args.username, password, args.role)
        print(f"added staff user {args.username} ({args.role})")
    elif args.staff_command == "list":
        with sessions() as db:
            for user in db.scalars(select(StaffUser).order_by(StaffUser.username)):
                state = "active" if user.active else "disabled"
                print(f"{user.username:<20} {user.display_name:<24} {state:<9} {', '.join(user.roles or [])}")
    elif args.staff_command == "disable":
        ended = disable(sessions, args.username)
        print(f"disabled staff user {args.username}; ended {ended} sessions")
    elif args.staff_command == "sessions":
        with sessions() as db:
            if db.get(StaffUser, args.username) is None:
                raise StaffAdminError(f"no staff user {args.username}")
            rows = staff_sessions.sessions_of(db, args.username, settings, live_only=not args.all)
            for r in rows:
                state = "live" if staff_sessions.is_live(r, settings) else "ended"
                print(
                    f"{r.id}  {r.kind:<4} {state:<5} from {r.client or '-':<16} "
                    f"created {r.created_at:%Y-%m-%d %H:%M}Z  last seen {r.last_seen_at:%Y-%m-%d %H:%M}Z  "
                    f"expires {r.expires_at:%Y-%m-%d %H:%M}Z"
                )
            print(f"{len(rows)} sessions")
    elif args.staff_command == "revoke":
        with sessions() as db:
            if db.get(StaffUser, args.username) is None:
                raise StaffAdminError(f"no staff user {args.username}")
            if args.session:
                if not staff_sessions.revoke(db, args.session, args.username):
                    raise StaffAdminError(f"no live session {args.session} of {args.username}")
                print(f"revoked session {args.session} of {args.username}")
            else:
                print(f"revoked {staff_sessions.revoke_all(db, args.username)} sessions of {args.username}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    s = sub.add_parser("staff", help="staff accounts and their sessions")
    ss = s.add_subparsers(dest="staff_command", required=True)
    a = ss.add_parser("add", help="create a staff user; the password is read from a prompt or stdin")
    a.add_argument("username")
    a.add_argument("--name", help="display name shown to claimants and colleagues")
    a.add_argument("--role", choices=ROLES, default="handler")
    a.add_argument("--password-stdin", action="store_true", help="read the password from stdin's first line")
    ss.add_parser("list", help="every staff user and whether it is active")
    d = ss.add_parser("disable", help="disable a user and end all their sessions")
    d.add_argument("username")
    se = ss.add_parser("sessions", help="a user's live sessions")
    se.add_argument("username")
    se.add_argument("--all", action="store_true", help="include ended sessions")
    r = ss.add_parser("revoke", help="end all of a user's sessions, or one with --session")
    r.add_argument("username")
    r.add_argument("--session", help="the session id (from `staff sessions`)")
    return s
