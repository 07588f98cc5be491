# The taluva game server's image: the package with the 'server' extra only, run as a user
# without privileges. docs/deploy.md, "Containers", shows how compose.yaml uses it; the same
# image runs 'taluva serve' (the default), 'taluva ai-worker' and 'taluva backup'.
# tests/test_deploy_compose.py checks its command and health check against the code.

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN python -m venv /opt/taluva \
    && /opt/taluva/bin/pip install --no-cache-dir --disable-pip-version-check ".[server]" \
    && /opt/taluva/bin/python -m taluva.lang.compile

FROM python:3.11-slim
# DejaVu Sans: the font of the board's picture in a "your move" mail (resvg finds it among
# the system's fonts; without one the mail goes without the picture)
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/taluva --uid 10001 taluva
COPY --from=build /opt/taluva /opt/taluva
ENV PATH=/opt/taluva/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    XDG_DATA_HOME=/var/lib/taluva \
    TALUVA_HOST=0.0.0.0 \
    TALUVA_PORT=8000
USER taluva
# Without TALUVA_DATABASE the games go to a SQLite file in /var/lib/taluva/taluva: mount a
# volume on /var/lib/taluva to keep them.
WORKDIR /var/lib/taluva
EXPOSE 8000
# /healthz: the process answers (docs/server-api.md, "Probes"); the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('TALUVA_PORT', '8000') + '/healthz', timeout=4)"]
CMD ["taluva", "serve"]
