"""The HTTP routes of e-mail and account recovery: an account's settings and address, the
link that confirms the address, changing the password, resetting a forgotten one, and the
switches of the mails a player may turn off (also by a mail's one-click unsubscribe link).

A reset request gets the same answer, after the same work, whether or not an account has
the address: the mails are queued after the answer has left. What needs mail is refused
with 503 ``mail-off`` on a server whose host set up no mail server.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Query, Request, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from taluva.engine.wording import T
from taluva.lang import current, use
from taluva.server.errors import ApiError
from taluva.server.games.words import reason_of
from taluva.server.http.accounts import _start_session, limit_address
from taluva.server.http.deps import SiteDep, signed_in
from taluva.server.http.guard import UNSUBSCRIBE_PATH
from taluva.server.http.messages import Strict
from taluva.server.http.site import Site
from taluva.server.mail.letters import confirm_letter, link_hours, reset_letter
from taluva.server.mail.links import BadLink, fingerprint
from taluva.server.mail.queue import KINDS, SWITCHES
from taluva.server.players.accounts import (
    PASSWORD_CHARS,
    SESSION_COOKIE,
    Account,
    check_password,
)
from taluva.server.players.credentials import EMAIL_CHARS, check_email

router = APIRouter(tags=["accounts"])
_PASSWORD_LENGTH = f"{PASSWORD_CHARS[0]} to {PASSWORD_CHARS[1]} characters"
"""The schema's description of a password (the OpenAPI description stays English)."""


class EmailBody(Strict):
    """An e-mail address."""

    email: str = Field(max_length=EMAIL_CHARS * 2, description="an address like name@example.org")


class LinkBody(Strict):
    """The token of a mailed link."""

    token: str = Field(max_length=1000)


class NewPassword(Strict):
    """The current password and a new one."""

    password: str = Field(max_length=1000, description="the current password")
    new_password: str = Field(max_length=1000, description=_PASSWORD_LENGTH)


class SwitchBody(Strict):
    """One kind of mail turned on or off."""

    kind: str = Field(max_length=32, description="one of GET /api/account's switches")
    on: bool


class ResetBody(Strict):
    """A reset link's token and the new password."""

    token: str = Field(max_length=1000)
    password: str = Field(max_length=1000, description=_PASSWORD_LENGTH)


async def _signed_in(request: Request) -> Account:
    return await signed_in(request, T("sign in to change your account"))


def _site_address(site: Site, request: Request) -> str:
    """The site's address for links in mails: ``public_url``, or where this request came."""
    return (site.settings.public_url or str(request.base_url)).rstrip("/")


async def _settings_of(site: Site, account: Account) -> dict[str, Any]:
    addresses = await site.service.db(site.credentials.addresses, account.id)
    off = await site.service.db(site.credentials.mail_off, account.id)
    return {
        "account": account.to_json(),
        "email": addresses.to_json(),
        "mail": site.post.on,
        "switches": [
            {"kind": kind, "about": KINDS[kind].about, "on": kind not in off} for kind in SWITCHES
        ],
    }


@router.get("/api/account", summary="The signed-in account's settings: its e-mail address")
async def account_settings(request: Request, site: SiteDep) -> dict[str, Any]:
    account = await _signed_in(request)
    return await _settings_of(site, account)


@router.put(
    "/api/account/email",
    status_code=202,
    summary="Give an e-mail address: a link that confirms it is mailed to it",
)
async def give_email(body: EmailBody, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await _signed_in(request)
    address = check_email(body.email)
    site.post.require()
    await site.service.db(site.credentials.ask, account.id, address)
    links = await site.post.links()
    base = _site_address(site, request)
    link = f"{base}/#/confirm/{links.make('confirm', account.id, address)}"
    letter = confirm_letter(account.name, link, base)  # in the request's language
    queued = await site.post.send("confirm", address, letter, account_id=account.id)
    if not queued:
        raise ApiError(
            429,
            "rate-limited",
            T("this address or account had its confirmation mails for today: try tomorrow"),
        )
    return await _settings_of(site, account)


@router.delete("/api/account/email", summary="Remove the account's e-mail address")
async def remove_email(request: Request, site: SiteDep) -> dict[str, Any]:
    account = await _signed_in(request)
    await site.service.db(site.credentials.forget, account.id)
    return await _settings_of(site, account)


@router.post(
    "/api/account/email/confirm",
    summary="Confirm an e-mail address with the token of the link mailed to it",
)
async def confirm_email(body: LinkBody, site: SiteDep) -> dict[str, Any]:
    links = await site.post.links()
    try:
        link = links.read("confirm", body.token)
    except BadLink as error:
        raise ApiError(400, "bad-link", reason_of(error)) from None
    if not await site.service.db(site.credentials.confirm, link.account_id, link.value):
        raise ApiError(
            400, "bad-link", T("this address was replaced or removed since: give it again")
        )
    return {"email": link.value}


@router.post(
    "/api/account/password",
    summary="Change the password (the current one required); other sessions end",
)
async def change_password(body: NewPassword, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await _signed_in(request)
    new = check_password(body.new_password)
    limit_address(site, request)
    found = await site.service.db(site.credentials.password_hash, account.id)
    stored = None if found is None else found[1]
    if stored is None or not await run_in_threadpool(
        site.passwords.verify, stored, body.password[:1000]
    ):
        raise ApiError(401, "bad-credentials", T("the current password is wrong"))
    digest = await run_in_threadpool(site.passwords.hash, new)
    token = request.cookies.get(SESSION_COOKIE)
    if not await site.service.db(
        site.credentials.change_password, account.id, stored, digest, token
    ):
        raise ApiError(409, "password-changed", T("the password was changed meanwhile: try again"))
    return {"account": account.to_json()}


@router.post(
    "/api/password-reset",
    status_code=202,
    summary="Ask for a password reset link, mailed to the accounts with this address",
)
async def ask_reset(
    body: EmailBody, request: Request, background: BackgroundTasks, site: SiteDep
) -> dict[str, Any]:
    address = check_email(body.email)
    site.post.require()
    limit_address(site, request)
    background.add_task(_mail_resets, site, address, _site_address(site, request), current())
    return {
        "message": T(
            "if an account has this confirmed address, a link to set a new password is on its "
            "way to it; it works once, for {hours}",
            hours=link_hours("reset"),
        )
    }


async def _mail_resets(site: Site, address: str, base: str, asked_in: str) -> None:
    """Mail a reset link to each account whose confirmed address is ``address``, in the
    language the account chose, else in the one it was asked for in (``asked_in``)."""
    links = await site.post.links()
    for account, email, password_hash in await site.service.db(
        site.credentials.accounts_at, address
    ):
        token = links.make("reset", account.id, fingerprint(password_hash))
        chosen = await site.service.db(site.accounts.language_of, account.id)
        with use(chosen or asked_in):
            letter = reset_letter(account.name, f"{base}/#/reset/{token}", base)
        await site.post.send("reset", email, letter, account_id=account.id)


@router.post(
    "/api/password-reset/new",
    summary="Set a new password with a reset link's token; every session ends, this browser "
    "signs in",
)
async def reset_password(
    body: ResetBody, request: Request, response: Response, site: SiteDep
) -> dict[str, Any]:
    new = check_password(body.password)
    links = await site.post.links()
    try:
        link = links.read("reset", body.token)
    except BadLink as error:
        raise ApiError(400, "bad-link", reason_of(error)) from None
    found = await site.service.db(site.credentials.password_hash, link.account_id)
    if found is None or fingerprint(found[1]) != link.value:
        raise ApiError(400, "bad-link", T("this link was used already: ask for a new one"))
    account, stored = found
    digest = await run_in_threadpool(site.passwords.hash, new)
    if not await site.service.db(
        site.credentials.change_password, account.id, stored, digest, None
    ):
        raise ApiError(400, "bad-link", T("this link was used already: ask for a new one"))
    await _start_session(site.service, site.accounts, account, request, response)
    current_account: Account | None = await site.service.db(site.accounts.by_id, account.id)
    return {"account": (current_account or account).to_json()}


@router.put("/api/account/mail-switches", summary="Turn one kind of mail on or off")
async def switch_mail(body: SwitchBody, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await _signed_in(request)
    if body.kind not in SWITCHES:
        raise ApiError(
            422,
            "bad-request",
            T(
                "kind must be one of {kinds}, not {given}",
                kinds=", ".join(SWITCHES),
                given=repr(body.kind),
            ),
        )
    await site.service.db(site.credentials.switch, account.id, body.kind, body.on)
    return await _settings_of(site, account)


@router.post(
    UNSUBSCRIBE_PATH,
    summary="Turn off the kind of mail a mail's unsubscribe link names (RFC 8058 one-click)",
)
async def unsubscribe(
    site: SiteDep, token: Annotated[str, Query(max_length=1000)]
) -> dict[str, Any]:
    links = await site.post.links()
    try:
        link = links.read("unsubscribe", token)
    except BadLink as error:
        raise ApiError(400, "bad-link", reason_of(error)) from None
    if link.value not in SWITCHES:
        raise ApiError(400, "bad-link", T("this link is for something else"))
    await site.service.db(site.credentials.switch, link.account_id, link.value, False)
    return {"kind": link.value, "on": False}
