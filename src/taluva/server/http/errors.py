"""Every refusal leaves as the API's own error body, ``{"error": {"code", "message"}}``: the
server's ``ApiError``, a request FastAPI could not read, Starlette's own 404 and 405, a
database that cannot be reached (503, ``Retry-After``), and any failure (500, its details
only in the log)."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException

from taluva.server.errors import ApiError
from taluva.server.http.messages import describe
from taluva.server.storage import outage

log = logging.getLogger("taluva.server")

HTTP_CODES = {404: "not-found", 405: "method-not-allowed", 413: "too-large"}
"""The codes of the HTTP errors Starlette raises itself (unknown path, wrong method)."""
HTTP_MESSAGES = {404: "there is nothing at this address", 405: "this method is not allowed"}


async def api_error(_request: Request, error: ApiError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers())


async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
    refusal = ApiError(422, "bad-request", describe(error.errors()))
    return JSONResponse(refusal.body(), status_code=refusal.status)


async def http_error(_request: Request, error: HTTPException) -> JSONResponse:
    code = HTTP_CODES.get(error.status_code, "bad-request")
    message = HTTP_MESSAGES.get(error.status_code, error.detail)
    refusal = ApiError(error.status_code, code, message)
    return JSONResponse(refusal.body(), status_code=refusal.status, headers=error.headers)


async def internal_error(_request: Request, _error: Exception) -> JSONResponse:
    refusal = ApiError(500, "internal", "the server failed; the error is in its log")
    return JSONResponse(refusal.body(), status_code=refusal.status)


def database_down() -> ApiError:
    """The answer to a request that met a database outage: try again shortly."""
    return ApiError(
        503,
        "unavailable",
        "the database cannot be reached: reconnecting…",
        retry_after=outage.RETRY_AFTER,
    )


async def database_error(_request: Request, error: DBAPIError) -> JSONResponse:
    """A database outage (logged once by ``storage.outage``) is 503; any other database
    error is a fault of the server, logged with its traceback."""
    if outage.unreachable(error):
        refusal = database_down()
        return JSONResponse(refusal.body(), status_code=refusal.status, headers=refusal.headers())
    log.error("a request failed in the database", exc_info=error)
    return await internal_error(_request, error)


def install(app: FastAPI) -> None:
    """Answer every refusal of ``app`` with the API's error body."""
    app.add_exception_handler(ApiError, api_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(DBAPIError, database_error)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, internal_error)
