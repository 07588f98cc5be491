"""Every refusal leaves as the API's own error body, ``{"error": {"code", "message"}}``: the
server's ``ApiError``, a request FastAPI could not read, Starlette's own 404 and 405, and any
failure (500, its details only in the log)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from taluva.server.errors import ApiError
from taluva.server.http.messages import describe

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


def install(app: FastAPI) -> None:
    """Answer every refusal of ``app`` with the API's error body."""
    app.add_exception_handler(ApiError, api_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, internal_error)
