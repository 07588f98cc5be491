"""Every refusal leaves as the API's own error body, ``{"error": {"code", "message"}}``: the
server's ``ApiError``, a request FastAPI could not read, Starlette's own 404 and 405, a
database that cannot be reached (503, ``Retry-After``), and any failure (500, its details
only in the log). The message is said in the request's language (``http.language``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException

from taluva.engine.wording import T, Text
from taluva.server.errors import ApiError
from taluva.server.http.language import scope_language
from taluva.server.http.messages import describe
from taluva.server.storage import outage

log = logging.getLogger("taluva.server")

HTTP_CODES = {404: "not-found", 405: "method-not-allowed", 413: "too-large"}
"""The codes of the HTTP errors Starlette raises itself (unknown path, wrong method)."""
HTTP_MESSAGES: dict[int, Text] = {
    404: T("there is nothing at this address"),
    405: T("this method is not allowed"),
}


def answer(
    request: Request, refusal: ApiError, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The JSON answer of ``refusal``, its message in the request's language."""
    body = refusal.body(scope_language(request))
    return JSONResponse(body, status_code=refusal.status, headers=headers)


async def api_error(request: Request, error: ApiError) -> JSONResponse:
    return answer(request, error, error.headers())


async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
    return answer(request, ApiError(422, "bad-request", describe(error.errors())))


async def http_error(request: Request, error: HTTPException) -> JSONResponse:
    code = HTTP_CODES.get(error.status_code, "bad-request")
    message = HTTP_MESSAGES.get(error.status_code, error.detail)
    return answer(request, ApiError(error.status_code, code, message), error.headers)


def failed() -> ApiError:
    """The answer to a request the server failed (its details are in the log only)."""
    return ApiError(500, "internal", T("the server failed; the error is in its log"))


async def internal_error(request: Request, _error: Exception) -> JSONResponse:
    return answer(request, failed())


def database_down() -> ApiError:
    """The answer to a request that met a database outage: try again shortly."""
    return ApiError(
        503,
        "unavailable",
        T("the database cannot be reached: reconnecting…"),
        retry_after=outage.RETRY_AFTER,
    )


async def database_error(request: Request, error: DBAPIError) -> JSONResponse:
    """A database outage (logged once by ``storage.outage``) is 503; any other database
    error is a fault of the server, logged with its traceback."""
    if outage.unreachable(error):
        refusal = database_down()
        return answer(request, refusal, refusal.headers())
    log.error("a request failed in the database", exc_info=error)
    return await internal_error(request, error)


def install(app: FastAPI) -> None:
    """Answer every refusal of ``app`` with the API's error body."""
    app.add_exception_handler(ApiError, api_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(DBAPIError, database_error)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, internal_error)
