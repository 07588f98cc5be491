"""The HTTP routes of web push: the server's VAPID public key, and a signed-in account's
subscribed browsers (subscribe one, list them with their switches, switch one kind on a
device, remove one). What needs push is refused with 503 ``push-off`` on a server whose host
set no VAPID subject (``taluva.server.push.keys.subject_of``)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import APIRouter, Path, Request
from pydantic import Field

from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.http.deps import SiteDep, signed_in
from taluva.server.http.messages import Strict
from taluva.server.http.site import Site
from taluva.server.mail.queue import KINDS
from taluva.server.push.keys import unb64url
from taluva.server.push.pusher import LOCAL_HOSTS
from taluva.server.push.subscriptions import LABEL_CHARS, Device, TooManyDevices

router = APIRouter(tags=["accounts"])

P256DH_BYTES = 65
"""A browser's P-256 public key: an uncompressed point."""
AUTH_BYTES = 16
"""A browser's authentication secret."""


class SubscriptionKeys(Strict):
    """The keys of a browser's PushSubscription, URL-safe base64."""

    p256dh: str = Field(max_length=200, description="the browser's P-256 public key")
    auth: str = Field(max_length=100, description="the browser's authentication secret")


class SubscriptionBody(Strict):
    """A browser's ``PushSubscription.toJSON()``, and the device's label."""

    endpoint: str = Field(max_length=1000, description="the push service's address for it")
    expirationTime: float | None = None
    """When the browser says the subscription ends (milliseconds since 1970), if it does."""
    keys: SubscriptionKeys
    label: str | None = Field(
        default=None, max_length=LABEL_CHARS, description="the device's name; else its browser"
    )


class DeviceSwitch(Strict):
    """One kind of notice turned on or off on one device."""

    kind: str = Field(max_length=32, description="one of the device's switches")
    on: bool


DeviceId = Annotated[int, Path(ge=1)]


def _bad(message: str) -> ApiError:
    return ApiError(422, "bad-subscription", message)


def _check_endpoint(endpoint: str, local: bool) -> str:
    """``endpoint`` if it is https, or plain http to this machine on a server that is itself
    only local (``local``): a public server never posts to its own machine's services."""
    url = urlsplit(endpoint)
    if url.scheme == "https" and url.hostname:
        return endpoint
    if local and url.scheme == "http" and url.hostname in LOCAL_HOSTS:
        return endpoint
    given = repr(endpoint[:100])
    if local:
        raise _bad(
            T(
                "endpoint must be the https address the browser's push service gave (or plain "
                "http to {hosts}), not {given}",
                hosts=", ".join(LOCAL_HOSTS),
                given=given,
            )
        )
    raise _bad(
        T(
            "endpoint must be the https address the browser's push service gave, not {given}",
            given=given,
        )
    )


def _check_key(name: str, text: str, size: int) -> str:
    field = "keys." + name
    try:
        raw = unb64url(text)
    except ValueError:
        raise _bad(T("{field} must be URL-safe base64", field=field)) from None
    if len(raw) != size:
        raise _bad(
            T(
                "{field} must be {size} bytes in URL-safe base64, not {length}",
                field=field,
                size=size,
                length=len(raw),
            )
        )
    return text.rstrip("=")


def _check_point(p256dh: str) -> None:
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(p256dh))
    except ValueError:
        raise _bad(T("keys.p256dh is not a point of the P-256 curve")) from None


def _device(site: Site, device: Device) -> dict[str, Any]:
    return {
        "id": device.id,
        "label": device.label,
        "created_at": device.created_at.isoformat(),
        "switches": [
            {"kind": kind, "about": KINDS[kind].about, "on": kind not in device.off}
            for kind in site.pusher.kinds
        ],
    }


async def _devices(site: Site, account_id: int) -> dict[str, Any]:
    devices = await site.service.db(site.pusher.subscriptions.devices, account_id)
    return {"push": site.pusher.on, "devices": [_device(site, device) for device in devices]}


@router.get(
    "/api/push/key",
    summary="The server's VAPID public key, the browsers' applicationServerKey",
)
async def push_key(site: SiteDep) -> dict[str, str]:
    site.pusher.require()
    return {"key": await site.pusher.public_key()}


@router.post(
    "/api/push/subscriptions",
    status_code=201,
    summary="Subscribe this browser to notifications (its PushSubscription); again: renew it",
)
async def subscribe(body: SubscriptionBody, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to turn notifications on"))
    site.pusher.require()
    endpoint = _check_endpoint(body.endpoint, site.pusher.local)
    p256dh = _check_key("p256dh", body.keys.p256dh, P256DH_BYTES)
    _check_point(p256dh)
    auth = _check_key("auth", body.keys.auth, AUTH_BYTES)
    agent = request.headers.get("user-agent", "")
    try:
        device = await site.service.db(
            site.pusher.subscriptions.subscribe,
            account.id,
            endpoint,
            p256dh,
            auth,
            body.label,
            agent,
        )
    except TooManyDevices:
        raise ApiError(
            409, "too-many-devices", T("this account has its most devices: remove one first")
        ) from None
    return _device(site, device)


@router.get(
    "/api/push/subscriptions",
    summary="The account's subscribed devices and the kinds of notice each has on",
)
async def devices(request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to see your devices"))
    return await _devices(site, account.id)


@router.patch(
    "/api/push/subscriptions/{device_id}",
    summary="Turn one kind of notice on or off on one device",
)
async def switch(
    device_id: DeviceId, body: DeviceSwitch, request: Request, site: SiteDep
) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to change your notifications"))
    if body.kind not in site.pusher.kinds:
        raise ApiError(
            422,
            "bad-request",
            T(
                "kind must be one of {kinds}, not {given}",
                kinds=", ".join(site.pusher.kinds),
                given=repr(body.kind),
            ),
        )
    device = await site.service.db(
        site.pusher.subscriptions.switch, account.id, device_id, body.kind, body.on
    )
    if device is None:
        raise _no_device()
    return _device(site, device)


@router.delete(
    "/api/push/subscriptions/{device_id}",
    summary="Turn notifications off on one device: it is forgotten",
)
async def unsubscribe(device_id: DeviceId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to change your notifications"))
    if not await site.service.db(site.pusher.subscriptions.remove, account.id, device_id):
        raise _no_device()
    return await _devices(site, account.id)


def _no_device() -> ApiError:
    return ApiError(404, "no-device", T("this account has no such device: it was removed"))
